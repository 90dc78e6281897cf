// CMF -> ChatML prompt (see prompt_renderer.hpp).
#include "prompt_renderer.hpp"

#include "cmfpipe/errors.hpp"
#include "cmfpipe/wire/function_tools.hpp"
#include "cmfpipe/wire/json_text.hpp"
#include "cmfpipe/wire/tool_arguments.hpp"

namespace cmfpipe::chatml {
namespace {

using cmf::Role;

constexpr std::string_view tools_intro =
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>";
constexpr std::string_view tools_outro =
    "\n</tools>\n\nFor each function call, return a json object with function name and arguments "
    "within "
    "<tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": "
    "<args-json-object>}\n</tool_call>";

[[noreturn]] void cannot_carry(std::size_t index, const cmf::Message& m,
                               const cmf::ContentPart& part) {
    throw ValueError("chatml: messages[" + std::to_string(index) + "] (" +
                     std::string(cmf::to_string(m.role())) + ") has a " +
                     std::string(cmf::to_string(part.type())) + " part, which ChatML cannot carry");
}

std::string turn(std::string_view role, const std::string& body) {
    return "<|im_start|>" + std::string(role) + "\n" + body + "<|im_end|>\n";
}

std::string result_text(const Json& content) {
    return content.is_string() ? content.get<std::string>() : wire::dump_spaced(content);
}

std::string call_text(const std::string& name, const Json& arguments) {
    return "<tool_call>\n{\"name\": " + Json(name).dump() +
           ", \"arguments\": " + wire::dump_spaced(arguments) + "}\n</tool_call>";
}

std::string call_text(const cmf::ToolCall& call) {
    return call_text(call.namespace_ ? *call.namespace_ + "." + call.name : call.name,
                     call.arguments);
}

std::string assistant_body(std::size_t index, const cmf::Message& m) {
    std::string body;
    bool after_text_or_call = false;
    for (const auto& part : m.content()) {
        if (const auto* thinking = part->get_if<cmf::Thinking>()) {
            body += "<think>\n" + thinking->text + "\n</think>\n\n";
            after_text_or_call = false;
        } else if (const auto* text = part->get_if<cmf::Text>()) {
            body += text->text;
            after_text_or_call = !text->text.empty();
        } else if (const auto* call = part->get_if<cmf::ToolCall>()) {
            if (after_text_or_call) body += "\n";
            body += call_text(*call);
            after_text_or_call = true;
        } else {
            cannot_carry(index, m, *part);
        }
    }
    // Calls whose arguments were not an object: their raw text as a JSON string, which the
    // parser reads back to the same flag.
    for (const Json& flagged : wire::invalid_tool_arguments(m)) {
        if (after_text_or_call) body += "\n";
        std::string name = flagged.value("name", "");
        if (flagged.contains("namespace")) name = flagged.value("namespace", "") + "." + name;
        body += call_text(name, Json(flagged.value("raw", "")));
        after_text_or_call = true;
    }
    return body;
}

class Writer {
  public:
    explicit Writer(const Settings& s) : settings_(s) {}

    void message(std::size_t index, const cmf::Message& m) {
        std::string text;
        bool has_text = false;
        for (const auto& part : m.content()) {
            if (m.role() == Role::assistant) break;
            if (const auto* result = part->get_if<cmf::ToolResult>()) {
                tool_result(*result);
            } else if (const auto* t = part->text_if()) {
                text += *t;
                has_text = true;
            } else {
                cannot_carry(index, m, *part);
            }
        }
        if (m.role() == Role::assistant) {
            close_results();
            out_ += "<|im_start|>assistant\n" + assistant_body(index, m) + "<|im_end|>\n";
            return;
        }
        if (!has_text && !m.content().empty()) return;  // only tool results
        close_results();
        const std::string_view role =
            m.role() == Role::developer ? "system" : cmf::to_string(m.role());
        out_ += turn(role, text);
    }

    std::string finish() {
        close_results();
        return std::move(out_);
    }
    std::string& out() { return out_; }

  private:
    void tool_result(const cmf::ToolResult& r) {
        const std::string block =
            "<tool_response>\n" + result_text(r.content) + "\n</tool_response>";
        if (settings_.hermes) {
            close_results();
            out_ += turn("tool", block);
            return;
        }
        if (!results_open_) {
            out_ += "<|im_start|>user";
            results_open_ = true;
        }
        out_ += "\n" + block;
    }
    void close_results() {
        if (!results_open_) return;
        out_ += "<|im_end|>\n";
        results_open_ = false;
    }

    const Settings& settings_;
    std::string out_;
    bool results_open_ = false;
};

}  // namespace

std::string render_prompt(const std::vector<cmf::Message>& messages, const Json& agent,
                          const Settings& settings) {
    std::size_t first = 0;
    std::optional<std::string> system = settings.default_system;
    if (!messages.empty() &&
        (messages[0].role() == Role::system || messages[0].role() == Role::developer)) {
        std::string text;
        for (const auto& part : messages[0].content()) {
            const auto* t = part->text_if();
            if (!t) cannot_carry(0, messages[0], *part);
            text += *t;
        }
        system = std::move(text);
        first = 1;
    }
    const Json tools = wire::openai_function_tools(agent, "chatml");
    Writer writer(settings);
    if (!tools.empty()) {
        std::string body = system ? *system + "\n\n" : std::string();
        body += tools_intro;
        for (const auto& tool : tools) body += "\n" + wire::dump_spaced(tool);
        body += tools_outro;
        writer.out() += turn("system", body);
    } else if (system) {
        writer.out() += turn("system", *system);
    }
    for (std::size_t i = first; i < messages.size(); ++i) writer.message(i, messages[i]);
    std::string out = writer.finish();
    if (settings.add_generation_prompt) {
        out += "<|im_start|>assistant\n";
        if (settings.enable_thinking == false) out += "<think>\n\n</think>\n\n";
        if (settings.enable_thinking == true) out += "<think>\n";
    }
    return out;
}

}  // namespace cmfpipe::chatml
