// CMF -> JSON in the reference wire shape (see cmf/json.hpp). Field order follows the spec tables.
#include <type_traits>

#include "cmfpipe/cmf/json.hpp"

namespace cmfpipe::cmf {
namespace {

template <class T>
Json opt(const std::optional<T>& value) {
    if (!value) return nullptr;
    if constexpr (std::is_enum_v<T>)
        return std::string(to_string(*value));
    else
        return Json(*value);
}

Json strings(const std::vector<std::string>& values) {
    return Json(values);
}

Json strings(const StringSet& values) {
    Json out = Json::array();
    for (const auto& v : values) out.push_back(v);
    return out;
}

Json string_map(const OrderedMap<std::string>& map) {
    Json out = Json::object();
    for (const auto& [key, value] : map) out[key] = value;
    return out;
}

template <class T>
Json keyed(const std::shared_ptr<const OrderedMap<T>>& map) {
    Json out = Json::object();
    if (map)
        for (const auto& [key, value] : *map) out[key] = Json(value);
    return out;
}

template <class T>
Json slot(const std::shared_ptr<const T>& value) {
    return value ? Json(*value) : Json(nullptr);
}

struct PartBody {
    Json operator()(const Text&) const { return nullptr; }
    Json operator()(const Thinking&) const { return nullptr; }
    Json operator()(const ToolCall& p) const {
        return Json{{"tool_call_id", p.tool_call_id},
                    {"name", p.name},
                    {"arguments", p.arguments},
                    {"namespace", opt(p.namespace_)}};
    }
    Json operator()(const ToolResult& p) const {
        return Json{{"tool_call_id", p.tool_call_id},
                    {"tool_name", p.tool_name},
                    {"content", p.content},
                    {"is_error", p.is_error}};
    }
    Json operator()(const Resource& p) const {
        return Json{{"resource_request_id", p.resource_request_id},
                    {"uri", p.uri},
                    {"name", opt(p.name)},
                    {"description", opt(p.description)},
                    {"resource_type", to_string(p.resource_type)},
                    {"content", opt(p.content)},
                    {"blob", opt(p.blob)},
                    {"mime_type", opt(p.mime_type)},
                    {"size_bytes", opt(p.size_bytes)},
                    {"annotations", p.annotations},
                    {"version", opt(p.version)}};
    }
    Json operator()(const ResourceReference& p) const {
        return Json{{"resource_request_id", p.resource_request_id},
                    {"uri", p.uri},
                    {"name", opt(p.name)},
                    {"resource_type", to_string(p.resource_type)},
                    {"range_start", opt(p.range_start)},
                    {"range_end", opt(p.range_end)},
                    {"selector", opt(p.selector)}};
    }
    Json operator()(const PromptRequest& p) const {
        return Json{{"prompt_request_id", p.prompt_request_id},
                    {"name", p.name},
                    {"arguments", p.arguments},
                    {"server_id", opt(p.server_id)}};
    }
    Json operator()(const PromptResult& p) const {
        return Json{{"prompt_request_id", p.prompt_request_id},
                    {"prompt_name", p.prompt_name},
                    {"messages", messages_to_json(p.messages)},
                    {"content", opt(p.content)},
                    {"is_error", p.is_error},
                    {"error_message", opt(p.error_message)}};
    }
    Json operator()(const ImageSource& p) const {
        return Json{
            {"type", to_string(p.type)}, {"data", p.data}, {"media_type", opt(p.media_type)}};
    }
    Json operator()(const VideoSource& p) const {
        return Json{{"type", to_string(p.type)},
                    {"data", p.data},
                    {"media_type", opt(p.media_type)},
                    {"duration_ms", opt(p.duration_ms)}};
    }
    Json operator()(const AudioSource& p) const {
        return Json{{"type", to_string(p.type)},
                    {"data", p.data},
                    {"media_type", opt(p.media_type)},
                    {"duration_ms", opt(p.duration_ms)}};
    }
    Json operator()(const DocumentSource& p) const {
        return Json{{"type", to_string(p.type)},
                    {"data", p.data},
                    {"media_type", opt(p.media_type)},
                    {"title", opt(p.title)}};
    }
};

}  // namespace

Json part_to_json(const ContentPart& part) {
    Json out = Json::object();
    out["content_type"] = to_string(part.type());
    if (const auto* text = part.text_if())
        out["text"] = *text;
    else
        out["content"] = std::visit(PartBody{}, part.value());
    // A thinking part's seal, beside its text: only when there is one (the spec's shape otherwise).
    if (const auto* thinking = part.get_if<Thinking>()) {
        if (thinking->sealed()) out["signature"] = thinking->signature;
        if (thinking->redacted) out["redacted"] = true;
    }
    return out;
}

Json message_to_json(const Message& message) {
    Json content = Json::array();
    for (const auto& part : message.content()) content.push_back(part_to_json(*part));
    Json out = Json::object();
    out["schema_version"] = message.schema_version();
    out["role"] = to_string(message.role());
    out["content"] = std::move(content);
    out["channel"] = opt(message.channel());
    if (!message.extensions().empty()) out["extensions"] = extensions_to_json(message.extensions());
    return out;
}

Json messages_to_json(const std::vector<Message>& messages) {
    Json out = Json::array();
    for (const auto& message : messages) out.push_back(message_to_json(message));
    return out;
}

Json extensions_to_json(const Extensions& ext, bool include_absent_slots) {
    Json out = Json::object();
    auto put = [&](const char* name, Json value) {
        if (!value.is_null() || include_absent_slots) out[name] = std::move(value);
    };
    put("request", slot(ext.request));
    put("agent", slot(ext.agent));
    put("http", slot(ext.http));
    put("security", slot(ext.security));
    put("delegation", slot(ext.delegation));
    put("mcp", slot(ext.mcp));
    put("completion", slot(ext.completion));
    put("provenance", slot(ext.provenance));
    put("llm", slot(ext.llm));
    put("framework", slot(ext.framework));
    put("meta", slot(ext.meta));
    put("custom", slot(ext.custom));
    return out;
}

void to_json(Json& json, const Message& message) {
    json = message_to_json(message);
}
void to_json(Json& json, const ContentPart& part) {
    json = part_to_json(part);
}
void to_json(Json& json, const Extensions& ext) {
    json = extensions_to_json(ext);
}

void to_json(Json& json, const RequestExtension& e) {
    json = Json{{"environment", opt(e.environment)},
                {"request_id", opt(e.request_id)},
                {"timestamp", opt(e.timestamp)},
                {"trace_id", opt(e.trace_id)},
                {"span_id", opt(e.span_id)}};
}

void to_json(Json& json, const ConversationContext& e) {
    json = Json{{"history", e.history ? messages_to_json(*e.history) : Json(nullptr)},
                {"summary", opt(e.summary)},
                {"topics", strings(e.topics)}};
}

void to_json(Json& json, const AgentExtension& e) {
    json = Json{{"input", opt(e.input)},
                {"session_id", opt(e.session_id)},
                {"conversation_id", opt(e.conversation_id)},
                {"turn", opt(e.turn)},
                {"agent_id", opt(e.agent_id)},
                {"parent_agent_id", opt(e.parent_agent_id)},
                {"conversation", e.conversation ? Json(*e.conversation) : Json(nullptr)}};
}

void to_json(Json& json, const HttpExtension& e) {
    json = Json{{"headers", string_map(e.headers)}};
}

void to_json(Json& json, const SubjectExtension& e) {
    json = Json{{"id", e.id},
                {"type", to_string(e.type)},
                {"roles", strings(e.roles)},
                {"permissions", strings(e.permissions)},
                {"teams", strings(e.teams)},
                {"claims", e.claims}};
}

void to_json(Json& json, const ObjectSecurityProfile& e) {
    json = Json{{"managed_by", e.managed_by},
                {"permissions", strings(e.permissions)},
                {"trust_domain", opt(e.trust_domain)},
                {"data_scope", strings(e.data_scope)}};
}

void to_json(Json& json, const RetentionPolicy& e) {
    json = Json{{"max_age_seconds", opt(e.max_age_seconds)},
                {"policy", e.policy},
                {"delete_after", opt(e.delete_after)}};
}

void to_json(Json& json, const DataPolicy& e) {
    json =
        Json{{"apply_labels", strings(e.apply_labels)},
             {"allowed_actions", e.allowed_actions ? strings(*e.allowed_actions) : Json(nullptr)},
             {"denied_actions", strings(e.denied_actions)},
             {"retention", e.retention ? Json(*e.retention) : Json(nullptr)}};
}

void to_json(Json& json, const SecurityExtension& e) {
    json = Json{{"labels", strings(e.labels)},
                {"classification", opt(e.classification)},
                {"subject", slot(e.subject)},
                {"objects", keyed(e.objects)},
                {"data", keyed(e.data)}};
}

void to_json(Json& json, const DelegationExtension& e) {
    json = e.value;
}

namespace {
Json tool_metadata(const ToolMetadata& m) {
    return Json{{"name", m.name},
                {"title", opt(m.title)},
                {"description", opt(m.description)},
                {"input_schema", opt(m.input_schema)},
                {"output_schema", opt(m.output_schema)},
                {"server_id", opt(m.server_id)},
                {"namespace", opt(m.namespace_)},
                {"annotations", m.annotations}};
}
Json resource_metadata(const ResourceMetadata& m) {
    return Json{{"uri", m.uri},
                {"name", opt(m.name)},
                {"description", opt(m.description)},
                {"mime_type", opt(m.mime_type)},
                {"server_id", opt(m.server_id)},
                {"annotations", m.annotations}};
}
Json prompt_metadata(const PromptMetadata& m) {
    return Json{{"name", m.name},
                {"description", opt(m.description)},
                {"arguments", m.arguments ? Json(*m.arguments) : Json(nullptr)},
                {"server_id", opt(m.server_id)},
                {"annotations", m.annotations}};
}
}  // namespace

void to_json(Json& json, const MCPExtension& e) {
    json = Json{{"tool", e.tool ? tool_metadata(*e.tool) : Json(nullptr)},
                {"resource", e.resource ? resource_metadata(*e.resource) : Json(nullptr)},
                {"prompt", e.prompt ? prompt_metadata(*e.prompt) : Json(nullptr)}};
}

void to_json(Json& json, const TokenUsage& e) {
    json = Json{{"input_tokens", e.input_tokens},
                {"output_tokens", e.output_tokens},
                {"total_tokens", e.total_tokens}};
}

void to_json(Json& json, const CompletionExtension& e) {
    json = Json{{"stop_reason", opt(e.stop_reason)},
                {"tokens", e.tokens ? Json(*e.tokens) : Json(nullptr)},
                {"model", opt(e.model)},
                {"raw_format", opt(e.raw_format)},
                {"created_at", opt(e.created_at)},
                {"latency_ms", opt(e.latency_ms)}};
}

void to_json(Json& json, const ProvenanceExtension& e) {
    json = Json{{"source", opt(e.source)},
                {"message_id", opt(e.message_id)},
                {"parent_id", opt(e.parent_id)}};
}

void to_json(Json& json, const LLMExtension& e) {
    json = Json{{"model_id", opt(e.model_id)},
                {"provider", opt(e.provider)},
                {"capabilities", strings(e.capabilities)}};
}

void to_json(Json& json, const FrameworkExtension& e) {
    json = Json{{"framework", opt(e.framework)},
                {"framework_version", opt(e.framework_version)},
                {"node_id", opt(e.node_id)},
                {"graph_id", opt(e.graph_id)},
                {"metadata", e.metadata}};
}

void to_json(Json& json, const MetaExtension& e) {
    json = Json{{"tags", strings(e.tags)},
                {"scope", opt(e.scope)},
                {"properties", string_map(e.properties)}};
}

}  // namespace cmfpipe::cmf
