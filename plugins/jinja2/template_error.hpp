#pragma once
// Engine failures -> cmfpipe errors: ValueError (template syntax and runtime errors) or
// LimitExceeded, with template name, line, column, and the offending line with a caret.
#include <string>
#include <string_view>

#include "failure.hpp"

namespace cmfpipe::jinja2 {

[[noreturn]] void raise_as_cmfpipe_error(const Failure& failure, const std::string& template_name,
                                         std::string_view source);

}  // namespace cmfpipe::jinja2
