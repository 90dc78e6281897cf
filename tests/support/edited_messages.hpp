#pragma once
// A change in every message of a conversation, as a processor that rewrites text makes it, and
// the comparison of what a body written back for it reads back as. Shared by the adapter tests
// (support/provider_bodies.hpp) and the request-body fuzz targets.
#include <string>
#include <vector>

#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/cmf/message.hpp"

namespace cmfpipe::testing {

// Every text and unsealed thinking part and every tool result's string content with " (edited)"
// added.
inline std::vector<cmf::Message> edited(std::vector<cmf::Message> messages) {
    for (cmf::Message& m : messages) {
        for (std::size_t i = 0; i < m.size(); ++i) {
            const cmf::ContentPart& part = *m.part(i);
            if (const auto* text = part.get_if<cmf::Text>()) {
                m = m.with_part(i, cmf::ContentPart::text(text->text + " (edited)"));
            } else if (const auto* thinking = part.get_if<cmf::Thinking>();
                       thinking && !thinking->sealed()) {  // sealed: immutable in a pipeline
                m = m.with_part(i, cmf::ContentPart::thinking(thinking->text + " (edited)"));
            } else if (const auto* result = part.get_if<cmf::ToolResult>();
                       result && result->content.is_string()) {
                cmf::ToolResult changed = *result;
                changed.content = result->content.get<std::string>() + " (edited)";
                m = m.with_part(i, cmf::ContentPart::make(std::move(changed)));
            }
        }
    }
    return messages;
}

// The same messages as far as a body can say: role, parts and origin (provenance) of each, in
// order (custom is left out: custom.refusal repeats a refusal's text as it was read).
inline bool same_conversation(const std::vector<cmf::Message>& a,
                              const std::vector<cmf::Message>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const auto origin = [](const cmf::Message& m) {
            return m.provenance() ? m.provenance()->message_id : std::nullopt;
        };
        if (a[i].role() != b[i].role() || origin(a[i]) != origin(b[i]) ||
            cmf::messages_to_json({cmf::Message(a[i].role(), a[i].content())}) !=
                cmf::messages_to_json({cmf::Message(b[i].role(), b[i].content())}))
            return false;
    }
    return true;
}

}  // namespace cmfpipe::testing
