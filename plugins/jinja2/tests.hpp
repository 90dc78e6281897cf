#pragma once
// Jinja's `is` tests (defined, string, mapping, divisibleby, ...), looked up at compile time.
#include <string_view>

#include "ast.hpp"

namespace cmfpipe::jinja2 {

TestFn find_test(std::string_view name);

}  // namespace cmfpipe::jinja2
