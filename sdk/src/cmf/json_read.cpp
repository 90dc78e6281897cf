// JSON -> CMF, strictly: every error names the JSON path of the offending value (see cmf/json.hpp).
#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/errors.hpp"
#include "json_reader.hpp"

namespace cmfpipe::cmf {
namespace {

using detail::fail_at;
using detail::fail_type;
using detail::ObjectReader;

MediaSourceType media_type_of(const ObjectReader& r) {
    return r.required_enum<MediaSourceType>("type", "media source type");
}

ToolCall read_tool_call(const ObjectReader& r) {
    ToolCall p;
    p.tool_call_id = r.required_string("tool_call_id");
    p.name = r.required_string("name");
    p.arguments = r.object_or_empty("arguments");
    p.namespace_ = r.optional_string("namespace");
    return p;
}

ToolResult read_tool_result(const ObjectReader& r) {
    ToolResult p;
    p.tool_call_id = r.required_string("tool_call_id");
    p.tool_name = r.required_string("tool_name");
    p.content = r.any("content");
    p.is_error = r.bool_or("is_error", false);
    return p;
}

Resource read_resource(const ObjectReader& r) {
    Resource p;
    p.resource_request_id = r.required_string("resource_request_id");
    p.uri = r.required_string("uri");
    p.name = r.optional_string("name");
    p.description = r.optional_string("description");
    p.resource_type = r.required_enum<ResourceType>("resource_type", "resource_type");
    p.content = r.optional_string("content");
    p.blob = r.optional_string("blob");
    if (p.content && p.blob)
        fail_at(r.at("blob"), "a resource has either content or blob, not both");
    p.mime_type = r.optional_string("mime_type");
    p.size_bytes = r.optional_int("size_bytes");
    p.annotations = r.object_or_empty("annotations");
    p.version = r.optional_string("version");
    return p;
}

ResourceReference read_resource_ref(const ObjectReader& r) {
    ResourceReference p;
    p.resource_request_id = r.required_string("resource_request_id");
    p.uri = r.required_string("uri");
    p.name = r.optional_string("name");
    p.resource_type = r.required_enum<ResourceType>("resource_type", "resource_type");
    p.range_start = r.optional_int("range_start");
    p.range_end = r.optional_int("range_end");
    if (p.range_start && p.range_end && *p.range_end < *p.range_start)
        fail_at(r.at("range_end"), "range_end (" + std::to_string(*p.range_end) +
                                       ") is less than range_start (" +
                                       std::to_string(*p.range_start) + ")");
    p.selector = r.optional_string("selector");
    return p;
}

PromptRequest read_prompt_request(const ObjectReader& r) {
    PromptRequest p;
    p.prompt_request_id = r.required_string("prompt_request_id");
    p.name = r.required_string("name");
    p.arguments = r.object_or_empty("arguments");
    p.server_id = r.optional_string("server_id");
    return p;
}

PromptResult read_prompt_result(const ObjectReader& r) {
    PromptResult p;
    p.prompt_request_id = r.required_string("prompt_request_id");
    p.prompt_name = r.required_string("prompt_name");
    if (const Json* messages = r.get("messages"))
        p.messages = messages_from_json(*messages, r.at("messages"));
    p.content = r.optional_string("content");
    p.is_error = r.bool_or("is_error", false);
    p.error_message = r.optional_string("error_message");
    return p;
}

ContentPart::Value read_body(ContentType type, const Json& json, const std::string& path) {
    switch (type) {
        case ContentType::tool_call:
            return read_tool_call(
                ObjectReader(json, path, {"tool_call_id", "name", "arguments", "namespace"}));
        case ContentType::tool_result:
            return read_tool_result(
                ObjectReader(json, path, {"tool_call_id", "tool_name", "content", "is_error"}));
        case ContentType::resource:
            return read_resource(ObjectReader(
                json, path,
                {"resource_request_id", "uri", "name", "description", "resource_type", "content",
                 "blob", "mime_type", "size_bytes", "annotations", "version"}));
        case ContentType::resource_ref:
            return read_resource_ref(
                ObjectReader(json, path,
                             {"resource_request_id", "uri", "name", "resource_type", "range_start",
                              "range_end", "selector"}));
        case ContentType::prompt_request:
            return read_prompt_request(
                ObjectReader(json, path, {"prompt_request_id", "name", "arguments", "server_id"}));
        case ContentType::prompt_result:
            return read_prompt_result(ObjectReader(json, path,
                                                   {"prompt_request_id", "prompt_name", "messages",
                                                    "content", "is_error", "error_message"}));
        case ContentType::image: {
            ObjectReader r(json, path, {"type", "data", "media_type"});
            return ImageSource{media_type_of(r), r.required_string("data"),
                               r.optional_string("media_type")};
        }
        case ContentType::video: {
            ObjectReader r(json, path, {"type", "data", "media_type", "duration_ms"});
            return VideoSource{media_type_of(r), r.required_string("data"),
                               r.optional_string("media_type"), r.optional_int("duration_ms")};
        }
        case ContentType::audio: {
            ObjectReader r(json, path, {"type", "data", "media_type", "duration_ms"});
            return AudioSource{media_type_of(r), r.required_string("data"),
                               r.optional_string("media_type"), r.optional_int("duration_ms")};
        }
        case ContentType::document: {
            ObjectReader r(json, path, {"type", "data", "media_type", "title"});
            return DocumentSource{media_type_of(r), r.required_string("data"),
                                  r.optional_string("media_type"), r.optional_string("title")};
        }
        case ContentType::text:
        case ContentType::thinking:
            break;
    }
    fail_at(path, "internal: no reader for this content_type");
}

// ContentPart's constructor re-checks the invariants; the reader has already named the path for
// the ones it knows, so anything it throws here is reported at the part.
PartPtr make_part(ContentPart::Value value, const std::string& path) {
    try {
        return std::make_shared<const ContentPart>(std::move(value));
    } catch (const ValueError& e) {
        fail_at(path, e.message());
    }
}

RequestExtension read_request(const ObjectReader& r) {
    return RequestExtension{r.optional_string("environment"), r.optional_string("request_id"),
                            r.optional_string("timestamp"), r.optional_string("trace_id"),
                            r.optional_string("span_id")};
}

ConversationContext read_conversation(const ObjectReader& r) {
    ConversationContext c;
    if (const Json* history = r.get("history"))
        c.history = messages_from_json(*history, r.at("history"));
    c.summary = r.optional_string("summary");
    c.topics = r.string_list("topics");
    return c;
}

AgentExtension read_agent(const ObjectReader& r) {
    AgentExtension a;
    a.input = r.optional_string("input");
    a.session_id = r.optional_string("session_id");
    a.conversation_id = r.optional_string("conversation_id");
    a.turn = r.optional_int("turn");
    a.agent_id = r.optional_string("agent_id");
    a.parent_agent_id = r.optional_string("parent_agent_id");
    if (const Json* conversation = r.get("conversation"))
        a.conversation = read_conversation(
            ObjectReader(*conversation, r.at("conversation"), {"history", "summary", "topics"}));
    return a;
}

SubjectExtension read_subject(const ObjectReader& r) {
    SubjectExtension s;
    s.id = r.required_string("id");
    s.type = r.required_enum<SubjectType>("type", "subject type");
    s.roles = r.string_set("roles");
    s.permissions = r.string_set("permissions");
    s.teams = r.string_set("teams");
    s.claims = r.object_or_empty("claims");
    return s;
}

ObjectSecurityProfile read_object_profile(const ObjectReader& r) {
    return ObjectSecurityProfile{r.required_string("managed_by"), r.string_list("permissions"),
                                 r.optional_string("trust_domain"), r.string_list("data_scope")};
}

RetentionPolicy read_retention(const ObjectReader& r) {
    return RetentionPolicy{r.optional_int("max_age_seconds"), r.required_string("policy"),
                           r.optional_string("delete_after")};
}

DataPolicy read_data_policy(const ObjectReader& r) {
    DataPolicy d;
    d.apply_labels = r.string_list("apply_labels");
    d.allowed_actions = r.optional_string_list("allowed_actions");
    d.denied_actions = r.string_list("denied_actions");
    if (const Json* retention = r.get("retention"))
        d.retention = read_retention(ObjectReader(*retention, r.at("retention"),
                                                  {"max_age_seconds", "policy", "delete_after"}));
    return d;
}

template <class T, class Read>
std::shared_ptr<const OrderedMap<T>> read_keyed(const ObjectReader& r, std::string_view key,
                                                Read read,
                                                std::initializer_list<std::string_view> fields) {
    const Json* value = r.get(key);
    if (!value) return nullptr;
    if (!value->is_object()) fail_type(r.at(key), "an object", *value);
    if (value->empty()) return nullptr;
    OrderedMap<T> out;
    for (const auto& [name, item] : value->items())
        out.set(name, read(ObjectReader(item, detail::child_path(r.at(key), name), fields)));
    return std::make_shared<const OrderedMap<T>>(std::move(out));
}

SecurityExtension read_security(const ObjectReader& r) {
    SecurityExtension s;
    s.labels = r.string_set("labels");
    s.classification = r.optional_string("classification");
    if (const Json* subject = r.get("subject"))
        s.subject = std::make_shared<const SubjectExtension>(read_subject(ObjectReader(
            *subject, r.at("subject"), {"id", "type", "roles", "permissions", "teams", "claims"})));
    s.objects = read_keyed<ObjectSecurityProfile>(
        r, "objects", read_object_profile,
        {"managed_by", "permissions", "trust_domain", "data_scope"});
    s.data =
        read_keyed<DataPolicy>(r, "data", read_data_policy,
                               {"apply_labels", "allowed_actions", "denied_actions", "retention"});
    return s;
}

std::optional<std::vector<Json>> optional_object_list(const ObjectReader& r, std::string_view key) {
    const Json* value = r.get(key);
    if (!value) return std::nullopt;
    if (!value->is_array()) fail_type(r.at(key), "an array of objects", *value);
    std::vector<Json> out;
    for (std::size_t i = 0; i < value->size(); ++i) {
        if (!(*value)[i].is_object())
            fail_type(detail::index_path(r.at(key), i), "an object", (*value)[i]);
        out.push_back((*value)[i]);
    }
    return out;
}

MCPExtension read_mcp(const ObjectReader& r) {
    MCPExtension m;
    if (const Json* tool = r.get("tool")) {
        ObjectReader t(*tool, r.at("tool"),
                       {"name", "title", "description", "input_schema", "output_schema",
                        "server_id", "namespace", "annotations"});
        m.tool = ToolMetadata{t.required_string("name"),          t.optional_string("title"),
                              t.optional_string("description"),   t.optional_object("input_schema"),
                              t.optional_object("output_schema"), t.optional_string("server_id"),
                              t.optional_string("namespace"),     t.object_or_empty("annotations")};
    }
    if (const Json* resource = r.get("resource")) {
        ObjectReader t(*resource, r.at("resource"),
                       {"uri", "name", "description", "mime_type", "server_id", "annotations"});
        m.resource =
            ResourceMetadata{t.required_string("uri"),         t.optional_string("name"),
                             t.optional_string("description"), t.optional_string("mime_type"),
                             t.optional_string("server_id"),   t.object_or_empty("annotations")};
    }
    if (const Json* prompt = r.get("prompt")) {
        ObjectReader t(*prompt, r.at("prompt"),
                       {"name", "description", "arguments", "server_id", "annotations"});
        m.prompt = PromptMetadata{t.required_string("name"), t.optional_string("description"),
                                  optional_object_list(t, "arguments"),
                                  t.optional_string("server_id"), t.object_or_empty("annotations")};
    }
    return m;
}

CompletionExtension read_completion(const ObjectReader& r) {
    CompletionExtension c;
    c.stop_reason = r.optional_enum<StopReason>("stop_reason", "stop_reason");
    if (const Json* tokens = r.get("tokens")) {
        ObjectReader t(*tokens, r.at("tokens"), {"input_tokens", "output_tokens", "total_tokens"});
        c.tokens = TokenUsage{t.required_int("input_tokens"), t.required_int("output_tokens"),
                              t.required_int("total_tokens")};
    }
    c.model = r.optional_string("model");
    c.raw_format = r.optional_string("raw_format");
    c.created_at = r.optional_string("created_at");
    c.latency_ms = r.optional_int("latency_ms");
    return c;
}

template <class T, class Read>
std::shared_ptr<const T> read_slot(const ObjectReader& ext, std::string_view key,
                                   std::initializer_list<std::string_view> fields, Read read) {
    const Json* value = ext.get(key);
    if (!value) return nullptr;
    return std::make_shared<const T>(read(ObjectReader(*value, ext.at(key), fields)));
}

}  // namespace

PartPtr part_from_json(const Json& json, std::string_view path_view) {
    const std::string path(path_view);
    if (!json.is_object()) fail_type(path, "a content part object", json);
    auto type_it = json.find("content_type");
    if (type_it == json.end()) fail_at(path, "missing 'content_type' discriminator");
    if (!type_it->is_string())
        fail_type(detail::child_path(path, "content_type"), "a string", *type_it);
    const ContentType type = ObjectReader::parse_enum<ContentType>(
        type_it->get<std::string>(), detail::child_path(path, "content_type"), "content_type");
    if (type == ContentType::text || type == ContentType::thinking) {
        ObjectReader r(json, path, {"content_type", "text"});
        std::string text = r.required_string("text");
        return make_part(type == ContentType::text ? ContentPart::Value(Text{std::move(text)})
                                                   : ContentPart::Value(Thinking{std::move(text)}),
                         path);
    }
    ObjectReader r(json, path, {"content_type", "content"});
    auto body = json.find("content");
    if (body == json.end()) fail_at(r.at("content"), "missing required field");
    return make_part(read_body(type, *body, r.at("content")), path);
}

Message message_from_json(const Json& json, std::string_view path_view) {
    ObjectReader r(json, std::string(path_view),
                   {"schema_version", "role", "content", "channel", "extensions"});
    if (const auto version = r.optional_string("schema_version");
        version && *version != schema_version)
        fail_at(r.at("schema_version"), "unsupported schema_version " +
                                            detail::json_quoted(*version) + " (expected \"2.0\")");
    const Role role = r.required_enum<Role>("role", "role");
    Content content;
    if (const Json* parts = r.get("content")) {
        if (!parts->is_array()) fail_type(r.at("content"), "an array of content parts", *parts);
        content.reserve(parts->size());
        for (std::size_t i = 0; i < parts->size(); ++i)
            content.push_back(part_from_json((*parts)[i], detail::index_path(r.at("content"), i)));
    }
    const auto channel = r.optional_enum<Channel>("channel", "channel");
    ExtensionsPtr ext;
    if (const Json* extensions = r.get("extensions")) {
        Extensions parsed = extensions_from_json(*extensions, r.at("extensions"));
        if (!parsed.empty()) ext = std::make_shared<const Extensions>(std::move(parsed));
    }
    return Message(role, std::move(content), channel, std::move(ext));
}

std::vector<Message> messages_from_json(const Json& json, std::string_view path_view) {
    const std::string path(path_view);
    if (!json.is_array()) fail_type(path, "an array of messages", json);
    std::vector<Message> out;
    out.reserve(json.size());
    for (std::size_t i = 0; i < json.size(); ++i)
        out.push_back(message_from_json(json[i], detail::index_path(path, i)));
    return out;
}

Extensions extensions_from_json(const Json& json, std::string_view path_view) {
    ObjectReader r(json, std::string(path_view),
                   {"request", "agent", "http", "security", "delegation", "mcp", "completion",
                    "provenance", "llm", "framework", "meta", "custom"});
    Extensions e;
    e.request = read_slot<RequestExtension>(
        r, "request", {"environment", "request_id", "timestamp", "trace_id", "span_id"},
        read_request);
    e.agent = read_slot<AgentExtension>(r, "agent",
                                        {"input", "session_id", "conversation_id", "turn",
                                         "agent_id", "parent_agent_id", "conversation"},
                                        read_agent);
    e.http = read_slot<HttpExtension>(r, "http", {"headers"}, [](const ObjectReader& h) {
        return HttpExtension{h.string_map("headers")};
    });
    e.security = read_slot<SecurityExtension>(
        r, "security", {"labels", "classification", "subject", "objects", "data"}, read_security);
    if (const Json* delegation = r.get("delegation")) {
        if (!delegation->is_object())
            fail_type(r.at("delegation"), "an object or null", *delegation);
        e.delegation =
            std::make_shared<const DelegationExtension>(DelegationExtension{*delegation});
    }
    e.mcp = read_slot<MCPExtension>(r, "mcp", {"tool", "resource", "prompt"}, read_mcp);
    e.completion = read_slot<CompletionExtension>(
        r, "completion",
        {"stop_reason", "tokens", "model", "raw_format", "created_at", "latency_ms"},
        read_completion);
    e.provenance = read_slot<ProvenanceExtension>(
        r, "provenance", {"source", "message_id", "parent_id"}, [](const ObjectReader& p) {
            return ProvenanceExtension{p.optional_string("source"), p.optional_string("message_id"),
                                       p.optional_string("parent_id")};
        });
    e.llm = read_slot<LLMExtension>(
        r, "llm", {"model_id", "provider", "capabilities"}, [](const ObjectReader& l) {
            return LLMExtension{l.optional_string("model_id"), l.optional_string("provider"),
                                l.string_list("capabilities")};
        });
    e.framework = read_slot<FrameworkExtension>(
        r, "framework", {"framework", "framework_version", "node_id", "graph_id", "metadata"},
        [](const ObjectReader& f) {
            return FrameworkExtension{f.optional_string("framework"),
                                      f.optional_string("framework_version"),
                                      f.optional_string("node_id"), f.optional_string("graph_id"),
                                      f.object_or_empty("metadata")};
        });
    e.meta = read_slot<MetaExtension>(
        r, "meta", {"tags", "scope", "properties"}, [](const ObjectReader& m) {
            return MetaExtension{m.string_set("tags"), m.optional_string("scope"),
                                 m.string_map("properties")};
        });
    if (const auto custom = r.optional_object("custom"))
        e.custom = std::make_shared<const Json>(*custom);
    return e;
}

void from_json(const Json& json, Message& message) {
    message = message_from_json(json);
}

}  // namespace cmfpipe::cmf
