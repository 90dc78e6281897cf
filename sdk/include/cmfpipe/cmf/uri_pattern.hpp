#pragma once
// Glob matching of view URIs (spec §4.5 matches_uri_pattern): `*` matches any run of characters
// other than '/', `**` any run including '/', every other character matches itself (so '.',
// '?', '[', '(' are literal). Linear in |uri| x |pattern|, no backtracking blow-up, no regex.
#include <string_view>

namespace cmfpipe::cmf {

bool matches_uri_pattern(std::string_view uri, std::string_view pattern);

}  // namespace cmfpipe::cmf
