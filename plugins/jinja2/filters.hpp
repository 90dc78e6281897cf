#pragma once
// Jinja's builtin filters, looked up by name at compile time.
#include <string_view>

#include "ast.hpp"
#include "template.hpp"

namespace cmfpipe::jinja2 {

FilterFn find_filter(std::string_view name, Profile profile);

}  // namespace cmfpipe::jinja2
