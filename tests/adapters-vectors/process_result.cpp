#include "process_result.hpp"

#include <stdexcept>

#include "cmfpipe/wire/tool_arguments.hpp"

namespace cmfpipe::testing {

Json process_result(const std::vector<cmf::Message>& messages) {
    if (messages.size() != 1)
        throw std::runtime_error("expected one message, got " + std::to_string(messages.size()));
    const cmf::Message& m = messages.front();
    Json calls = Json::array();
    Json images = Json::array();
    std::string text;
    for (const cmf::PartPtr& p : m.content()) {
        if (const auto* call = p->get_if<cmf::ToolCall>()) {
            calls.push_back(Json{{"id", call->tool_call_id},
                                 {"name", call->name},
                                 {"arguments", call->arguments.dump()}});
        } else if (const auto* image = p->get_if<cmf::ImageSource>()) {
            images.push_back(image->data);
        } else if (const auto* t = p->get_if<cmf::Text>()) {
            text += t->text;
        }
    }
    // Calls whose arguments were not an object: flagged with their raw text, no part.
    for (const Json& e : wire::invalid_tool_arguments(m))
        calls.push_back(
            Json{{"id", e["tool_call_id"]}, {"name", e["name"]}, {"arguments", e["raw"]}});
    if (!calls.empty()) return calls;
    if (const auto& custom = m.custom()) {
        if (custom->contains("structured_output")) return (*custom)["structured_output"];
        if (custom->contains("embeddings")) {
            const Json& e = (*custom)["embeddings"];
            return e.size() == 1 ? e[0] : e;
        }
    }
    if (!images.empty()) return images.size() == 1 ? images[0] : images;
    return text;
}

}  // namespace cmfpipe::testing
