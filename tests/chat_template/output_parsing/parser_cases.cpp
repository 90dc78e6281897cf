// Reading parser-cases.json (see parser_cases.hpp).
#include "parser_cases.hpp"

#include "cmfpipe/errors.hpp"
#include "cmfpipe/json_parse.hpp"
#include "cmfpipe/json_reader.hpp"
#include "harness_data.hpp"
#include "msg_compare.hpp"

namespace cmfpipe::output_parsing {
namespace {

std::string trimmed(std::string_view text) {
    return std::string(strip_whitespace(text));
}

std::vector<std::string> split(std::string_view text, char separator) {
    std::vector<std::string> out;
    std::size_t from = 0;
    while (true) {
        const auto at = text.find(separator, from);
        out.push_back(trimmed(text.substr(from, at - from)));
        if (at == std::string_view::npos) return out;
        from = at + 1;
    }
}

// A C++ string literal's text at text[at] (the opening quote); `at` moves past it.
std::string string_literal(std::string_view text, std::size_t& at) {
    std::string out;
    for (++at; at < text.size(); ++at) {
        const char c = text[at];
        if (c == '"') {
            ++at;
            return out;
        }
        if (c != '\\') {
            out += c;
            continue;
        }
        if (++at == text.size()) break;
        switch (text[at]) {
            case 'n':
                out += '\n';
                break;
            case 't':
                out += '\t';
                break;
            case 'r':
                out += '\r';
                break;
            case '"':
            case '\\':
            case '\'':
                out += text[at];
                break;
            default:
                throw ValueError("unknown escape \\" + std::string(1, text[at]));
        }
    }
    throw ValueError("a string literal is not closed");
}

void skip_space(std::string_view text, std::size_t& at) {
    while (at < text.size() && strip_whitespace(text.substr(at, 1)).empty()) ++at;
}

void expect_char(std::string_view text, std::size_t& at, char c) {
    skip_space(text, at);
    if (at >= text.size() || text[at] != c)
        throw ValueError("expected '" + std::string(1, c) + "' at byte " + std::to_string(at));
    ++at;
}

bool next_is(std::string_view text, std::size_t& at, char c) {
    skip_space(text, at);
    return at < text.size() && text[at] == c;
}

Json function_tool(const std::string& name, const std::string& description, Json parameters) {
    return {
        {"type", "function"},
        {"function",
         {{"name", name}, {"description", description}, {"parameters", std::move(parameters)}}}};
}

bool flag(const JsonReader& value) {
    if (value.string() == "true") return true;
    if (value.string() == "false") return false;
    value.fail("expected \"true\" or \"false\", got " + json_quoted(value.string()));
}

// A value of one of llama.cpp's enums, by the name after `prefix`.
std::string enum_value(const JsonReader& value, std::string_view prefix,
                       std::initializer_list<std::pair<std::string_view, std::string_view>> names) {
    const std::string& text = value.string();
    if (text.starts_with(prefix)) {
        for (const auto& [name, meaning] : names) {
            if (text.substr(prefix.size()) == name) return std::string(meaning);
        }
    }
    value.fail("not a value the runner knows: " + json_quoted(text));
}

}  // namespace

std::vector<std::string> template_file_names(std::string_view field) {
    std::string_view list = field;
    if (const auto loop = field.find("loop:"); loop != std::string_view::npos)
        list = field.substr(loop + 5);
    if (const auto note = list.find(" ("); note != std::string_view::npos)
        list = list.substr(0, note);
    std::vector<std::string> names;
    for (std::string path : split(list, ',')) {
        const auto slash = path.rfind('/');
        std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
        if (!name.ends_with(".jinja"))
            throw ValueError("not a template file name: " + json_quoted(path));
        names.push_back(std::move(name));
    }
    return names;
}

std::vector<std::string> braced_names(std::string_view value) {
    const std::string_view inner = strip_whitespace(value);
    if (inner.size() < 2 || inner.front() != '{' || inner.back() != '}')
        throw ValueError("expected {name, ...}, got " + json_quoted(value));
    std::vector<std::string> names = split(inner.substr(1, inner.size() - 2), ',');
    for (const std::string& name : names) {
        if (name.empty()) throw ValueError("an empty name in " + json_quoted(value));
    }
    return names;
}

Json inline_tools(std::string_view value) {
    Json tools = Json::array();
    std::size_t at = 0;
    expect_char(value, at, '{');
    while (next_is(value, at, '{')) {
        ++at;
        std::vector<std::string> fields;
        while (next_is(value, at, '"')) {
            fields.push_back(string_literal(value, at));
            if (next_is(value, at, ',')) ++at;
        }
        expect_char(value, at, '}');
        if (fields.size() != 3)
            throw ValueError("a tool is {name, description, parameters}, got " +
                             std::to_string(fields.size()) + " strings");
        tools.push_back(function_tool(fields[0], fields[1], parse_json(fields[2], fields[0])));
        if (next_is(value, at, ',')) ++at;
    }
    expect_char(value, at, '}');
    skip_space(value, at);
    if (at != value.size()) throw ValueError("text after the tools at byte " + std::to_string(at));
    return tools;
}

Json cmf_message(const Json& message) {
    const std::string role = message.value("role", "assistant");
    const std::string content = message.value("content", "");
    Json parts = Json::array();
    if (role == "tool") {
        parts.push_back({{"content_type", "tool_result"},
                         {"content",
                          {{"tool_call_id", message.value("tool_call_id", "")},
                           {"tool_name", ""},
                           {"content", content}}}});
    } else if (role != "assistant") {
        parts.push_back({{"content_type", "text"}, {"text", content}});
    } else {
        const std::string reasoning = message.value("reasoning_content", "");
        if (!reasoning.empty())
            parts.push_back({{"content_type", "thinking"}, {"text", reasoning}});
        if (!content.empty()) parts.push_back({{"content_type", "text"}, {"text", content}});
        for (const Json& call : message.value("tool_calls", Json::array())) {
            JsonParse arguments = try_parse_json(call.value("arguments", ""));
            if (!arguments.value || !arguments.value->is_object()) {
                throw ValueError(
                    "the arguments of the call to " + json_quoted(call.value("name", "")) +
                    " are not a JSON object: " + json_quoted(call.value("arguments", "")));
            }
            parts.push_back({{"content_type", "tool_call"},
                             {"content",
                              {{"tool_call_id", call.value("id", "")},
                               {"name", call.value("name", "")},
                               {"arguments", std::move(*arguments.value)}}}});
        }
    }
    return {{"role", role}, {"content", std::move(parts)}};
}

CaseFile::CaseFile(Json document, std::string name)
    : document_(std::move(document)), name_(std::move(name)) {
    const JsonReader file(name_, document_);
    source_ = file.at("source").string();
    file.at("tools").object();
    file.at("named_messages").object();
    file.at("cases").array();
    const JsonReader defaults = file.at("harness_defaults");
    enable_thinking_ = defaults.at("enable_thinking").boolean();
    parallel_tool_calls_ = defaults.at("parallel_tool_calls").boolean();
    add_generation_prompt_ = defaults.at("add_generation_prompt").boolean();
}

ParserCase CaseFile::read(std::size_t index) const {
    const JsonReader file(name_, document_);
    const JsonReader entry = file.at("cases").elements().at(index);
    ParserCase out;
    out.index = index;
    out.input = entry.at("input").string();
    out.expect = chat_msg_from_json(entry.at("expect").object().json());
    out.enable_thinking = enable_thinking_;
    out.parallel_tool_calls = parallel_tool_calls_;
    out.add_generation_prompt = add_generation_prompt_;
    out.reasoning_format = "none";
    out.messages.push_back(cmf_message(harness_messages().at("message_user")));

    const JsonReader field = entry.at("template");
    try {
        out.templates = template_file_names(field.string());
    } catch (const ValueError& e) {
        field.fail(e.what());
    }
    for (const auto& member : entry.at("opts").members()) {
        const std::string& key = member.first;
        const JsonReader& value = member.second;  // named, for the lambda below (clang 14)
        // The text forms' own errors, with the option's place.
        auto named = [&value](std::string_view what, const Json& table, const Json& more,
                              const std::string& name) -> const Json& {
            if (const auto found = table.find(name); found != table.end()) return *found;
            if (const auto found = more.find(name); found != more.end()) return *found;
            value.fail("no " + std::string(what) + " named " + json_quoted(name));
        };
        try {
            if (key == "tools") {
                const std::string& text = value.string();
                if (text.find('"') != std::string::npos) {
                    out.tools = inline_tools(text);
                } else {
                    for (const std::string& name : braced_names(text)) {
                        const Json& tool =
                            named("tool", document_.at("tools"), Json::object(), name);
                        out.tools.push_back(function_tool(tool.at("name").get<std::string>(),
                                                          tool.value("description", ""),
                                                          tool.at("parameters")));
                    }
                }
            } else if (key == "messages") {
                out.messages = Json::array();
                for (const std::string& name : braced_names(value.string())) {
                    out.messages.push_back(cmf_message(named(
                        "message", document_.at("named_messages"), harness_messages(), name)));
                }
            } else if (key == "reasoning_format") {
                out.reasoning_format =
                    enum_value(value, "COMMON_REASONING_FORMAT_",
                               {{"NONE", "none"}, {"AUTO", "auto"}, {"DEEPSEEK", "deepseek"}});
            } else if (key == "continue_final_message") {
                out.continue_final_message = enum_value(
                    value, "COMMON_CHAT_CONTINUATION_",
                    {{"NONE", ""}, {"CONTENT", "content"}, {"REASONING", "reasoning_content"}});
            } else if (key == "tool_choice") {
                out.tool_choice_required =
                    enum_value(value, "COMMON_CHAT_TOOL_CHOICE_",
                               {{"AUTO", "auto"}, {"REQUIRED", "required"}}) == "required";
            } else if (key == "json_schema") {
                out.json_schema =
                    named("JSON schema", harness_json_schemas(), Json::object(), value.string());
            } else if (key == "enable_thinking") {
                out.enable_thinking = flag(value);
            } else if (key == "parallel_tool_calls") {
                out.parallel_tool_calls = flag(value);
            } else if (key == "add_generation_prompt") {
                out.add_generation_prompt = flag(value);
            } else if (key == "is_partial") {
                out.is_partial = flag(value);
            } else if (key == "expect_reconstruction") {
                out.expect_reconstruction = flag(value);
            } else {
                value.fail("an option the runner does not know");
            }
        } catch (const ValueError& e) {
            const std::string what = e.what();
            // The reader's own failures already name the place.
            if (what.starts_with(name_ + ": ")) throw;
            value.fail(what);
        }
    }
    return out;
}

}  // namespace cmfpipe::output_parsing
