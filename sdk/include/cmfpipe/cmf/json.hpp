#pragma once
// CMF <-> JSON in the reference implementation's wire shape:
//   {"schema_version": "2.0", "role": "assistant", "content": [parts...], "channel": null,
//    "extensions": {...}}          <- "extensions" only when the message has any
//   text / thinking part: {"content_type": "text", "text": "..."}
//   every other part:     {"content_type": "tool_call", "content": {all fields, nulls included}}
// Extension slots are written with all their fields (nulls included); absent slots are left out
// unless include_absent_slots (then they are null, as the reference dumps them).
// Sets (labels, roles, permissions, teams, tags) are written sorted.
//
// Reading is strict and never guesses: an unknown content_type or field, a value of the wrong
// JSON type, a closed-set value outside its set, a resource with both content and blob,
// range_end < range_start or a schema_version other than "2.0" is a ValueError whose message
// starts with the JSON path of the offending value, e.g.
//   messages[2].content[1].content.range_end: range_end (5) is less than range_start (10)
// `path` names the root of the value being read ("message", "messages", "body.messages", ...).
#include <string_view>
#include <vector>

#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/json.hpp"

namespace cmfpipe::cmf {

Json message_to_json(const Message& message);
Json messages_to_json(const std::vector<Message>& messages);
Json part_to_json(const ContentPart& part);
Json extensions_to_json(const Extensions& ext, bool include_absent_slots = false);

Message message_from_json(const Json& json, std::string_view path = "message");
std::vector<Message> messages_from_json(const Json& json, std::string_view path = "messages");
PartPtr part_from_json(const Json& json, std::string_view path = "part");
Extensions extensions_from_json(const Json& json, std::string_view path = "extensions");

// nlohmann ADL hooks, in pairs: every type that converts to JSON converts back, strictly, so
// `Json j = *message.security();` and `j.get<SecurityExtension>()` round-trip. Errors name the
// path from the type's name: "security.labels: expected an array of strings, got string".
void to_json(Json& json, const Message& message);
void from_json(const Json& json, Message& message);
void to_json(Json& json, const ContentPart& part);
void to_json(Json& json, const Extensions& ext);
void from_json(const Json& json, Extensions& ext);
void to_json(Json& json, const RequestExtension& ext);
void from_json(const Json& json, RequestExtension& ext);
void to_json(Json& json, const AgentExtension& ext);
void from_json(const Json& json, AgentExtension& ext);
void to_json(Json& json, const ConversationContext& ext);
void from_json(const Json& json, ConversationContext& ext);
void to_json(Json& json, const HttpExtension& ext);
void from_json(const Json& json, HttpExtension& ext);
void to_json(Json& json, const SecurityExtension& ext);
void from_json(const Json& json, SecurityExtension& ext);
void to_json(Json& json, const SubjectExtension& ext);
void from_json(const Json& json, SubjectExtension& ext);
void to_json(Json& json, const ObjectSecurityProfile& ext);
void from_json(const Json& json, ObjectSecurityProfile& ext);
void to_json(Json& json, const DataPolicy& ext);
void from_json(const Json& json, DataPolicy& ext);
void to_json(Json& json, const RetentionPolicy& ext);
void from_json(const Json& json, RetentionPolicy& ext);
void to_json(Json& json, const DelegationExtension& ext);
void from_json(const Json& json, DelegationExtension& ext);
void to_json(Json& json, const MCPExtension& ext);
void from_json(const Json& json, MCPExtension& ext);
void to_json(Json& json, const CompletionExtension& ext);
void from_json(const Json& json, CompletionExtension& ext);
void to_json(Json& json, const TokenUsage& ext);
void from_json(const Json& json, TokenUsage& ext);
void to_json(Json& json, const ProvenanceExtension& ext);
void from_json(const Json& json, ProvenanceExtension& ext);
void to_json(Json& json, const LLMExtension& ext);
void from_json(const Json& json, LLMExtension& ext);
void to_json(Json& json, const FrameworkExtension& ext);
void from_json(const Json& json, FrameworkExtension& ext);
void to_json(Json& json, const MetaExtension& ext);
void from_json(const Json& json, MetaExtension& ext);

}  // namespace cmfpipe::cmf

// `j.get<ContentPart>()`: a part has no empty state to fill, so it is built from the JSON.
template <>
struct nlohmann::adl_serializer<cmfpipe::cmf::ContentPart> {
    static cmfpipe::cmf::ContentPart from_json(const cmfpipe::Json& json);
    static void to_json(cmfpipe::Json& json, const cmfpipe::cmf::ContentPart& part) {
        cmfpipe::cmf::to_json(json, part);
    }
};
