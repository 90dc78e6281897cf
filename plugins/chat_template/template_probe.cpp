// Rendering the analysis's variants (see template_probe.hpp).
#include "template_probe.hpp"

#include "cmfpipe/errors.hpp"
#include "cmfpipe/wire/json_text.hpp"
#include "diff_split.hpp"

namespace cmfpipe::chat_template {
namespace {

Json string_parameter() {
    return Json{{"type", "string"}, {"description", "a text"}};
}

Json probe_tool(std::string_view name) {
    Json properties = Json::object();
    properties[std::string(needle::argument_first)] = string_parameter();
    properties[std::string(needle::argument_second)] = string_parameter();
    return Json{{"type", "function"},
                {"function",
                 {{"name", name},
                  {"description", "A tool of the analysis"},
                  {"parameters",
                   {{"type", "object"},
                    {"properties", std::move(properties)},
                    {"required", Json::array({std::string(needle::argument_first)})}}}}}};
}

Json assistant_message(const ProbeTurn& turn, bool null_call_content, bool arguments_as_text) {
    Json message = {{"role", "assistant"}};
    const bool null_content =
        null_call_content && !turn.calls.empty() && turn.content && turn.content->empty();
    message["content"] =
        turn.content && !null_content ? Json(std::string(*turn.content)) : Json(nullptr);
    if (turn.reasoning) message["reasoning_content"] = std::string(*turn.reasoning);
    if (!turn.calls.empty()) {
        Json calls = Json::array();
        for (const ProbeCall& call : turn.calls) {
            Json arguments = Json::object();
            for (const auto& [name, value] : call.arguments)
                arguments[std::string(name)] = std::string(value);
            if (arguments_as_text) arguments = wire::dump_spaced(arguments);
            calls.push_back({{"id", call.id},
                             {"type", "function"},
                             {"function", {{"name", call.function}, {"arguments", arguments}}}});
        }
        message["tool_calls"] = std::move(calls);
    }
    return message;
}

}  // namespace

TemplateProbe::TemplateProbe(const Renderer& renderer, const AnalysisInputs& inputs)
    : renderer_(renderer),
      inputs_(inputs),
      tools_(
          Json::array({probe_tool(needle::function_first), probe_tool(needle::function_second)})) {
    // A template that refuses tools is still analysed for reasoning and content.
    if (!render(std::nullopt, true)) {
        tools_ = nullptr;
        return;
    }
    // The first way of writing a call's turn that the template renders.
    for (const auto& [null_content, as_text] : {std::pair{false, false}, std::pair{true, false},
                                                std::pair{false, true}, std::pair{true, true}}) {
        null_call_content_ = null_content;
        arguments_as_text_ = as_text;
        if (render(calls_turn({ProbeCall{}}), false)) return;
    }
    null_call_content_ = arguments_as_text_ = false;
}

std::optional<std::string> TemplateProbe::render(const std::optional<ProbeTurn>& assistant,
                                                 bool generation_prompt,
                                                 std::optional<bool> thinking) const {
    Json messages = Json::array({{{"role", "user"}, {"content", needle::user}}});
    if (assistant)
        messages.push_back(assistant_message(*assistant, null_call_content_, arguments_as_text_));
    Json variables = inputs_.variables.is_object() ? inputs_.variables : Json::object();
    variables["messages"] = std::move(messages);
    variables["add_generation_prompt"] = generation_prompt;
    if (!tools_.is_null()) variables["tools"] = tools_;
    if (thinking) variables["enable_thinking"] = *thinking;
    // A tokenizer always has them; where the caller gave none, the analysis renders with empty
    // ones rather than fail on templates that print them (Mistral Nemo, Functionary, Llama 3).
    variables["bos_token"] = inputs_.bos_token;
    variables["eos_token"] = inputs_.eos_token;
    // A fixed time: strftime_now must not differ between two variants. Lists and dicts are
    // mutable, as llama.cpp's engine has them: Kimi K2 appends to a list to render its calls.
    const Json options = {{"profile", "chat-template"},
                          {"template_name", inputs_.template_name},
                          {"now", "2024-07-26T00:00:00"},
                          {"mutable_containers", true}};
    try {
        std::string text = renderer_.render(inputs_.template_text, variables, options);
        if (!filler_.empty()) text = without_all(text, filler_);
        return text;
    } catch (const ValueError& e) {
        last_error_ = e.what();
        return std::nullopt;
    }
}

}  // namespace cmfpipe::chat_template
