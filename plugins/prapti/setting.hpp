#pragma once
// One configuration line, read: `%identifier = literal` (an assignment) or `%identifier args` (an
// action), with an optional `!` before the identifier as Prapti writes some actions. Literals are
// JSON values (strings, numbers, booleans, lists of them), read by the sdk's bounded JSON parser.
#include <string>
#include <string_view>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/json.hpp"

namespace cmfpipe::prapti {

struct Setting {
    SourceLocation at;  // the identifier
    std::string key;    // the identifier: the assigned field or the action's name
    bool is_action = false;
    Json value;             // an assignment's value
    int value_column = 0;   // where it starts
    std::string arguments;  // an action's arguments, as written (trimmed)
    bool bang = false;      // written `%!name` / `% !name`

    // {"file", "line", "column", "key", "value", "value_column"} or {"file", "line", "column",
    // "action", "arguments"}, and "bang": true when written.
    Json to_json() const;
};

// `command` is the text after `%` on line `line` of `file`, starting at column `column`.
// ValueError at file:line:col for a line that is not an assignment or an action; LimitExceeded
// for a literal nested deeper than the limits policy allows.
Setting read_setting(std::string_view command, const std::string& file, int line, int column);

}  // namespace cmfpipe::prapti
