#include "setting.hpp"

#include "cmfpipe/json_parse.hpp"
#include "cmfpipe/json_reader.hpp"

namespace cmfpipe::prapti {
namespace {

bool is_identifier_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_identifier_char(char c) {
    return is_identifier_start(c) || (c >= '0' && c <= '9');
}
bool is_space(char c) {
    return c == ' ' || c == '\t';
}

// `a.b_c.d`: dot-separated words; the length taken, 0 when there is none.
std::size_t identifier_length(std::string_view text) {
    std::size_t i = 0;
    while (true) {
        if (i >= text.size() || !is_identifier_start(text[i])) return i == 0 ? 0 : i - 1;
        while (i < text.size() && is_identifier_char(text[i])) ++i;
        if (i >= text.size() || text[i] != '.') return i;
        ++i;
    }
}

// Strings, numbers, booleans and lists of them: what a configuration field can hold.
void check_literal(const Json& value, const std::string& key, const SourceLocation& where) {
    if (value.is_array()) {
        for (const Json& element : value) check_literal(element, key, where);
        return;
    }
    if (value.is_string() || value.is_number() || value.is_boolean()) return;
    throw ValueError(
        "the value of '" + key + "' holds " +
            (value.is_null() ? std::string("null") : "an " + std::string(json_type_name(value))) +
            ": a configuration value is a string, a number, a boolean or a list",
        where);
}

// Where in the literal the JSON parser stopped (its text is one line).
std::size_t column_offset(const Error& e) {
    return e.where().column > 0 ? static_cast<std::size_t>(e.where().column) - 1 : 0;
}

}  // namespace

Json Setting::to_json() const {
    Json out = {{"file", at.file}, {"line", at.line}, {"column", at.column}};
    if (is_action) {
        out["action"] = key;
        out["arguments"] = arguments;
    } else {
        out["key"] = key;
        out["value"] = value;
        out["value_column"] = value_column;
    }
    if (bang) out["bang"] = true;
    return out;
}

Setting read_setting(std::string_view command, const std::string& file, int line, int column) {
    std::size_t i = 0;
    auto at = [&](std::size_t offset) {
        return SourceLocation{file, line, column + static_cast<int>(offset)};
    };
    while (i < command.size() && is_space(command[i])) ++i;
    if (i < command.size() && command[i] == '%') {
        throw ValueError("multi-line configuration lines (%%) are not supported", at(i));
    }
    Setting setting;
    if (i < command.size() && command[i] == '!') {
        setting.bang = true;
        ++i;
        while (i < command.size() && is_space(command[i])) ++i;
    }
    const std::size_t length = identifier_length(command.substr(i));
    if (length == 0) {
        throw ValueError(
            "a configuration line needs a name after '%' (`% name = value` or "
            "`% action arguments`); write text without a leading '%'",
            at(i));
    }
    setting.at = at(i);
    setting.key = std::string(command.substr(i, length));
    i += length;
    const std::size_t after_name = i;
    while (i < command.size() && is_space(command[i])) ++i;
    if (i < command.size() && command[i] == '=') {
        ++i;
        while (i < command.size() && is_space(command[i])) ++i;
        if (i >= command.size()) throw ValueError("'" + setting.key + " =' needs a value", at(i));
        setting.value_column = at(i).column;
        const std::string_view literal = command.substr(i);
        try {
            setting.value = parse_json(literal, file);
        } catch (const LimitExceeded& e) {
            throw LimitExceeded("the value of '" + setting.key + "': " + e.message(),
                                at(i + column_offset(e)));
        } catch (const ValueError& e) {
            throw ValueError(
                "the value of '" + setting.key +
                    "' is not a literal (a JSON string, number, boolean or list): " + e.message(),
                at(i + column_offset(e)));
        }
        check_literal(setting.value, setting.key, at(i));
        return setting;
    }
    if (i == after_name && i < command.size()) {
        throw ValueError("unexpected '" + std::string(1, command[i]) + "' after '" + setting.key +
                             "' (`% name = value` or `% action arguments`)",
                         at(i));
    }
    setting.is_action = true;
    setting.arguments = std::string(command.substr(i));
    return setting;
}

}  // namespace cmfpipe::prapti
