#pragma once
// Global functions templates can call: range, namespace, dict, cycler, joiner, lipsum and, in
// the chat-template profile, raise_exception and strftime_now.
#include <string_view>

#include "template.hpp"
#include "value.hpp"

namespace cmfpipe::jinja2 {

// -1 when `name` is no global in this profile.
int find_builtin(std::string_view name, Profile profile);
// The callable for a builtin id (shared, stateless).
const Value& builtin_value(int id);

}  // namespace cmfpipe::jinja2
