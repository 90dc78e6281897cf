// A parsed completion as a CMF message (see completion_message.hpp).
#include "completion_message.hpp"

#include "cmfpipe/wire/tool_arguments.hpp"

namespace cmfpipe::chat_template {

cmf::Message completion_message(ParsedCompletion parsed, const ToolSet& tools) {
    using cmf::ContentPart;
    cmf::Content parts;
    if (!parsed.reasoning.empty())
        parts.push_back(ContentPart::thinking(std::move(parsed.reasoning)));
    if (!parsed.content.empty()) parts.push_back(ContentPart::text(std::move(parsed.content)));

    // custom in a fixed order: incomplete, unfinished_tool_call, builtin_tool_calls,
    // invalid_tool_arguments.
    Json custom = Json::object();
    if (parsed.ended_in_reasoning || parsed.unfinished) custom["incomplete"] = true;
    // A call of which nothing is known yet (its section or list opened, the cut before its name)
    // is only the incompleteness.
    const ParsedCall* unfinished = parsed.unfinished ? &*parsed.unfinished : nullptr;
    if (unfinished && unfinished->name.empty() && unfinished->id.empty() &&
        unfinished->arguments.empty())
        unfinished = nullptr;
    if (unfinished) {
        custom["unfinished_tool_call"] = {{"name", unfinished->name},
                                          {"id", unfinished->id},
                                          {"arguments", unfinished->arguments}};
    }
    if (!parsed.builtin_tool_calls.empty())
        custom["builtin_tool_calls"] = std::move(parsed.builtin_tool_calls);
    Json flagged = Json::object();
    for (ParsedCall& call : parsed.calls) {
        wire::ToolArguments arguments = wire::tool_arguments_from_text(call.arguments);
        cmf::ToolCall part{std::move(call.id), std::move(call.name), Json::object(), std::nullopt};
        if (arguments.error) {
            wire::flag_invalid_tool_arguments(flagged, part, arguments);
            continue;
        }
        part.arguments = std::move(arguments.object);
        tools.type_arguments(part.name, part.arguments);
        parts.push_back(ContentPart::make(std::move(part)));
    }
    custom.update(flagged);

    cmf::ExtensionsPtr ext;
    if (!custom.empty()) {
        auto extensions = std::make_shared<cmf::Extensions>();
        extensions->custom = std::make_shared<const Json>(std::move(custom));
        ext = std::move(extensions);
    }
    return cmf::Message(cmf::Role::assistant, std::move(parts), std::nullopt, std::move(ext));
}

}  // namespace cmfpipe::chat_template
