// One run of a case (see case_run.hpp).
#include "case_run.hpp"

#include <algorithm>
#include <optional>

#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/errors.hpp"
#include "llama_template_inputs.hpp"
#include "msg_compare.hpp"
#include "msg_stream.hpp"

namespace cmfpipe::output_parsing {
namespace {

// "Kind: what", its first line (a template error goes on with the source line and a caret).
std::string error_text(const std::exception& e) {
    std::string text = e.what();
    if (const auto* error = dynamic_cast<const Error*>(&e))
        text = std::string(error->kind()) + ": " + text;
    return text.substr(0, text.find('\n'));
}

// The tools the template is rendered with.
Json agent(const ParserCase& c, const CaseTemplate& t, const RunSettings& settings) {
    const bool listed = llama_template_inputs(t.name, c.tools, settings.now).tools_in_template;
    return c.tools.empty() || !listed ? Json::object() : Json{{"tools", c.tools}};
}

std::string render(const Adapter& adapter, const Json& messages, const Json& agent,
                   const Json& options) {
    return adapter.to_wire(cmf::messages_from_json(messages), agent, options).get<std::string>();
}

// from_wire of `text`: its one message in the harness's fields, or why there is none.
struct Parse {
    std::optional<ChatMsg> message;
    std::string failure;
};

Parse parse(const Adapter& adapter, std::string_view text, const Json& options) {
    try {
        const std::vector<cmf::Message> messages = adapter.from_wire(text, options);
        if (messages.size() != 1)
            return {std::nullopt, "gave " + std::to_string(messages.size()) + " messages, not one"};
        return {chat_msg_from_cmf(messages.front()), ""};
    } catch (const std::exception& e) {
        return {std::nullopt, error_text(e)};
    }
}

std::optional<std::string> streaming(const Adapter& adapter, const ParserCase& c, Json options) {
    // Each prefix as a stream gives it: the parser knows more is coming (test-chat.cpp parses
    // the prefixes as partial).
    options["partial"] = true;
    StreamAccumulator sum;
    for (std::size_t n = 1; n <= c.input.size(); ++n) {
        const std::string_view prefix =
            std::string_view(c.input).substr(0, utf8_safe_length(c.input.substr(0, n)));
        const std::string at = "streaming, the first " + std::to_string(prefix.size()) + " of " +
                               std::to_string(c.input.size()) + " bytes: ";
        const Parse parsed = parse(adapter, prefix, options);
        if (!parsed.message) return at + "from_wire: " + parsed.failure;
        if (auto failure = sum.add(*parsed.message)) return at + *failure;
    }
    if (auto difference = message_difference(c.expect, sum.accumulated()))
        return "streaming, the sum of the diffs: " + *difference;
    return std::nullopt;
}

RunOutcome failed(std::string reason) {
    return {false, std::move(reason)};
}

}  // namespace

Json prompt_options(const ParserCase& c, const CaseTemplate& t, const RunSettings& settings) {
    // bos_token and eos_token: llama.cpp's harness loads a template without a model, so both are
    // defined and empty.
    Json options = {{"template", t.text},
                    {"template_name", t.path},
                    {"add_generation_prompt", c.add_generation_prompt},
                    {"enable_thinking", c.enable_thinking},
                    {"bos_token", ""},
                    {"eos_token", ""},
                    {"now", settings.now}};
    if (!c.continue_final_message.empty())
        options["continue_final_message"] = c.continue_final_message;
    if (Json kwargs = llama_template_inputs(t.name, c.tools, settings.now).chat_template_kwargs;
        !kwargs.empty())
        options["chat_template_kwargs"] = std::move(kwargs);
    return options;
}

Json parse_options(const ParserCase& c, const CaseTemplate& t, const RunSettings& settings,
                   const std::string& prompt) {
    // The template's options as the prompt was rendered with them (its continuation is the
    // prompt's own), then the parser's.
    Json options = prompt_options(c, t, settings);
    options.erase("continue_final_message");
    options["reasoning_format"] = c.reasoning_format;
    options["parallel_tool_calls"] = c.parallel_tool_calls;
    options["prompt"] = prompt;
    if (!c.tools.empty()) options["tools"] = c.tools;
    if (c.json_schema) options["json_schema"] = *c.json_schema;
    return options;
}

std::optional<std::string> reconstruction_difference(const Adapter& adapter, const ParserCase& c,
                                                     const CaseTemplate& t,
                                                     const RunSettings& settings,
                                                     const ChatMsg& parsed,
                                                     const std::string& prompt) {
    // The expected message, with the calls' arguments as the parse wrote them.
    ChatMsg expected = c.expect;
    for (std::size_t i = 0; i < std::min(expected.tool_calls.size(), parsed.tool_calls.size()); ++i)
        expected.tool_calls[i].arguments = parsed.tool_calls[i].arguments;
    std::string rendered;
    try {
        Json messages = c.messages;
        Json message = to_json(expected);
        message["role"] = "assistant";
        messages.push_back(cmf_message(message));
        Json options = prompt_options(c, t, settings);
        options["add_generation_prompt"] = false;
        rendered = render(adapter, messages, agent(c, t, settings), options);
    } catch (const std::exception& e) {
        return "reconstruction: " + error_text(e);
    }
    const std::string whole = prompt + c.input;
    if (rendered.starts_with(whole)) return std::nullopt;
    const auto at = static_cast<std::size_t>(
        std::mismatch(whole.begin(), whole.begin() + std::min(whole.size(), rendered.size()),
                      rendered.begin())
            .first -
        whole.begin());
    return "reconstruction: the conversation with the expected message renders differently from "
           "byte " +
           std::to_string(at) + " of the prompt and the completion: expected " +
           quoted_excerpt(whole, at) + " got " + quoted_excerpt(rendered, at);
}

RunOutcome run_case(const Adapter& adapter, const ParserCase& c, const CaseTemplate& t,
                    const RunSettings& settings) {
    std::string prompt;
    try {
        prompt = render(adapter, c.messages, agent(c, t, settings), prompt_options(c, t, settings));
    } catch (const std::exception& e) {
        return failed("to_wire: " + error_text(e));
    }
    Json options = parse_options(c, t, settings, prompt);
    options["partial"] = c.is_partial;

    const Parse whole = parse(adapter, c.input, options);
    if (!whole.message) return failed("from_wire: " + whole.failure);
    if (auto difference = message_difference(c.expect, *whole.message)) return failed(*difference);
    const bool unfinished =
        !whole.message->tool_calls.empty() && whole.message->tool_calls.back().unfinished;
    if (unfinished && !c.is_partial)
        return failed(
            "the whole completion parsed as ending inside a tool call "
            "(custom.unfinished_tool_call)");

    if (settings.streaming) {
        if (auto failure = streaming(adapter, c, options)) return failed(*failure);
    }
    if (c.expect_reconstruction && !c.is_partial) {
        if (auto failure =
                reconstruction_difference(adapter, c, t, settings, *whole.message, prompt))
            return failed(*failure);
    }
    return {true, ""};
}

}  // namespace cmfpipe::output_parsing
