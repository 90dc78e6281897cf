// A request's messages in their common form, read straight off the tree: each an object of a role
// (not tool) and a string content (or none), nothing else. It gives exactly what
// read_chat_conversation + with_body_origin give (tests/openai/request_plain_test.cpp checks both
// on thousands of generated and mutated bodies) without the readers' path strings and the
// message built twice: one Message a message, its provenance set as it is made. Any other form
// (a name, blocks, calls, a tool result, a member of another type) gives nullopt and the full
// path reads the body and says what is wrong with it.
#include "cmfpipe/cmf/extensions.hpp"
#include "openai_wire.hpp"

namespace cmfpipe::openai {

std::optional<cmf::Role> plain_request_role(std::string_view name) {
    const auto known = cmf::enum_from_string<cmf::Role>(name);
    if (!known || *known == cmf::Role::tool) return std::nullopt;
    return known;
}

cmf::Message plain_request_message(cmf::Role role, std::string content, std::size_t index) {
    cmf::Content parts;
    if (!content.empty()) parts.push_back(cmf::ContentPart::text(std::move(content)));
    auto provenance = std::make_shared<cmf::ProvenanceExtension>();
    provenance->source = std::string(request_source);
    provenance->message_id = "messages[" + std::to_string(index) + "]";
    auto extensions = std::make_shared<cmf::Extensions>();
    extensions->provenance = std::move(provenance);
    return cmf::Message(role, std::move(parts), std::nullopt, std::move(extensions));
}

std::optional<std::vector<cmf::Message>> plain_chat_request_messages(const Json& body) {
    if (!body.is_object()) return std::nullopt;
    const auto wire_messages = body.find("messages");
    if (wire_messages == body.end() || !wire_messages->is_array()) return std::nullopt;
    std::vector<cmf::Message> out;
    out.reserve(wire_messages->size());
    for (const Json& message : *wire_messages) {
        if (!message.is_object()) return std::nullopt;
        std::optional<cmf::Role> role;
        const Json* content = nullptr;
        for (auto member = message.begin(); member != message.end(); ++member) {
            const std::string_view key = member.key();
            if (key == "role" && member.value().is_string()) {
                role = plain_request_role(member.value().get_ref<const std::string&>());
                if (!role) return std::nullopt;
            } else if (key == "content" &&
                       (member.value().is_string() || member.value().is_null())) {
                content = &member.value();
            } else {
                return std::nullopt;  // any other member is the full path's to read or refuse
            }
        }
        if (!role) return std::nullopt;
        out.push_back(plain_request_message(
            *role, content && content->is_string() ? content->get_ref<const std::string&>() : "",
            out.size()));
    }
    return out;
}

}  // namespace cmfpipe::openai
