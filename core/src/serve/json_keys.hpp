#pragma once
// Whether a JSON text may be passed on as it came in place of the document parsed from it: the
// parser keeps the last of duplicate keys, and a reader behind the proxy may keep the first, so a
// text with a duplicate key (or a key spelled with an escape, which could spell a duplicate) is
// only ever passed on as the proxy's own rewrite of what it read and checked.
#include <cstddef>
#include <string_view>

#include "cmfpipe/json_parse.hpp"

namespace cmfpipe::serve {

// `json` must be a text the JSON parser accepted. True when every object's keys are distinct,
// none holds a backslash, no object has more than `max_keys_an_object` keys (past that the
// check would cost more than the rewrite it saves) and the text does not begin with a byte order
// mark (which the parser skips). Linear in the text's size.
bool keys_plain_and_distinct(std::string_view json);

// The same answer from what parse_json_noting_keys saw of the text, with no second pass (and
// false when a NUL byte ended the text early: the bytes after it were never read).
bool keys_plain_and_distinct(const JsonKeyFacts& facts);

inline constexpr std::size_t max_keys_an_object = 64;

}  // namespace cmfpipe::serve
