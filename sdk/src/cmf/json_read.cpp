// JSON -> CMF, strictly: every error names the JSON path of the offending value (see cmf/json.hpp).
// Reading goes through the sdk's one strict reader (cmfpipe/json_reader.hpp), with no document
// name so that messages start with the path ("messages[0].role: missing (required)").
#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/json_reader.hpp"

namespace cmfpipe::cmf {
namespace {

// A CMF object at `path` whose keys are all in `fields`.
JsonReader object_at(const Json& json, std::string path,
                     std::initializer_list<std::string_view> fields) {
    JsonReader r(std::string(), json, std::move(path));
    r.only_fields(fields);
    return r;
}

// A closed-set value: "unknown role \"x\" (expected one of: ...)".
template <class Enum>
Enum enum_at(const JsonReader& node, const char* what) {
    const std::string& text = node.string();
    if (auto value = enum_from_string<Enum>(text)) return *value;
    node.fail(std::string("unknown ") + what + " " + json_quoted(text) +
              " (expected one of: " + std::string(enum_spellings<Enum>()) + ")");
}

template <class Enum>
std::optional<Enum> optional_enum(const JsonReader& r, std::string_view key, const char* what) {
    auto node = r.find(key);
    if (!node) return std::nullopt;
    if (!node->is_string()) node->fail_expected("a string or null");
    return enum_at<Enum>(*node, what);
}

std::string required_string(const JsonReader& r, std::string_view key) {
    return r.at(key).string();
}

// Any JSON value; missing -> null.
Json any(const JsonReader& r, std::string_view key) {
    auto it = r.json().find(key);
    return it == r.json().end() ? Json(nullptr) : *it;
}

StringSet string_set(const JsonReader& r, std::string_view key) {
    auto list = r.strings_or_empty(key);
    return StringSet(std::make_move_iterator(list.begin()), std::make_move_iterator(list.end()));
}

OrderedMap<std::string> string_map(const JsonReader& r, std::string_view key) {
    OrderedMap<std::string> out;
    auto node = r.find(key);
    if (!node) return out;
    if (!node->is_object()) node->fail_expected("an object of strings");
    for (const auto& [name, item] : node->members()) out.set(name, item.string());
    return out;
}

MediaSourceType media_type_of(const JsonReader& r) {
    return enum_at<MediaSourceType>(r.at("type"), "media source type");
}

ToolCall read_tool_call(const JsonReader& r) {
    ToolCall p;
    p.tool_call_id = required_string(r, "tool_call_id");
    p.name = required_string(r, "name");
    p.arguments = r.object_or_empty("arguments");
    p.namespace_ = r.optional_string("namespace");
    return p;
}

ToolResult read_tool_result(const JsonReader& r) {
    ToolResult p;
    p.tool_call_id = required_string(r, "tool_call_id");
    p.tool_name = required_string(r, "tool_name");
    p.content = any(r, "content");
    p.is_error = r.boolean_or("is_error", false);
    return p;
}

Resource read_resource(const JsonReader& r) {
    Resource p;
    p.resource_request_id = required_string(r, "resource_request_id");
    p.uri = required_string(r, "uri");
    p.name = r.optional_string("name");
    p.description = r.optional_string("description");
    p.resource_type = enum_at<ResourceType>(r.at("resource_type"), "resource_type");
    p.content = r.optional_string("content");
    p.blob = r.optional_string("blob");
    if (p.content && p.blob)
        JsonReader(std::string(), r.json(), r.path_of("blob"))
            .fail("a resource has either content or blob, not both");
    p.mime_type = r.optional_string("mime_type");
    p.size_bytes = r.optional_integer("size_bytes");
    p.annotations = r.object_or_empty("annotations");
    p.version = r.optional_string("version");
    return p;
}

ResourceReference read_resource_ref(const JsonReader& r) {
    ResourceReference p;
    p.resource_request_id = required_string(r, "resource_request_id");
    p.uri = required_string(r, "uri");
    p.name = r.optional_string("name");
    p.resource_type = enum_at<ResourceType>(r.at("resource_type"), "resource_type");
    p.range_start = r.optional_integer("range_start");
    p.range_end = r.optional_integer("range_end");
    if (p.range_start && p.range_end && *p.range_end < *p.range_start)
        JsonReader(std::string(), r.json(), r.path_of("range_end"))
            .fail("range_end (" + std::to_string(*p.range_end) + ") is less than range_start (" +
                  std::to_string(*p.range_start) + ")");
    p.selector = r.optional_string("selector");
    return p;
}

PromptRequest read_prompt_request(const JsonReader& r) {
    PromptRequest p;
    p.prompt_request_id = required_string(r, "prompt_request_id");
    p.name = required_string(r, "name");
    p.arguments = r.object_or_empty("arguments");
    p.server_id = r.optional_string("server_id");
    return p;
}

PromptResult read_prompt_result(const JsonReader& r) {
    PromptResult p;
    p.prompt_request_id = required_string(r, "prompt_request_id");
    p.prompt_name = required_string(r, "prompt_name");
    if (auto messages = r.find("messages"))
        p.messages = messages_from_json(messages->json(), messages->path());
    p.content = r.optional_string("content");
    p.is_error = r.boolean_or("is_error", false);
    p.error_message = r.optional_string("error_message");
    return p;
}

ContentPart::Value read_body(ContentType type, const Json& json, const std::string& path) {
    switch (type) {
        case ContentType::tool_call:
            return read_tool_call(
                object_at(json, path, {"tool_call_id", "name", "arguments", "namespace"}));
        case ContentType::tool_result:
            return read_tool_result(
                object_at(json, path, {"tool_call_id", "tool_name", "content", "is_error"}));
        case ContentType::resource:
            return read_resource(object_at(
                json, path,
                {"resource_request_id", "uri", "name", "description", "resource_type", "content",
                 "blob", "mime_type", "size_bytes", "annotations", "version"}));
        case ContentType::resource_ref:
            return read_resource_ref(
                object_at(json, path,
                          {"resource_request_id", "uri", "name", "resource_type", "range_start",
                           "range_end", "selector"}));
        case ContentType::prompt_request:
            return read_prompt_request(
                object_at(json, path, {"prompt_request_id", "name", "arguments", "server_id"}));
        case ContentType::prompt_result:
            return read_prompt_result(object_at(json, path,
                                                {"prompt_request_id", "prompt_name", "messages",
                                                 "content", "is_error", "error_message"}));
        case ContentType::image: {
            JsonReader r = object_at(json, path, {"type", "data", "media_type"});
            return ImageSource{media_type_of(r), required_string(r, "data"),
                               r.optional_string("media_type")};
        }
        case ContentType::video: {
            JsonReader r = object_at(json, path, {"type", "data", "media_type", "duration_ms"});
            return VideoSource{media_type_of(r), required_string(r, "data"),
                               r.optional_string("media_type"), r.optional_integer("duration_ms")};
        }
        case ContentType::audio: {
            JsonReader r = object_at(json, path, {"type", "data", "media_type", "duration_ms"});
            return AudioSource{media_type_of(r), required_string(r, "data"),
                               r.optional_string("media_type"), r.optional_integer("duration_ms")};
        }
        case ContentType::document: {
            JsonReader r = object_at(json, path, {"type", "data", "media_type", "title"});
            return DocumentSource{media_type_of(r), required_string(r, "data"),
                                  r.optional_string("media_type"), r.optional_string("title")};
        }
        case ContentType::text:
        case ContentType::thinking:
            break;
    }
    JsonReader(std::string(), json, path).fail("internal: no reader for this content_type");
}

// ContentPart's constructor re-checks the invariants; the reader has already named the path for
// the ones it knows, so anything it throws here is reported at the part.
PartPtr make_part(ContentPart::Value value, const std::string& path) {
    try {
        return std::make_shared<const ContentPart>(std::move(value));
    } catch (const ValueError& e) {
        JsonReader(std::string(), Json(), path).fail(e.message());
    }
}

RequestExtension read_request(const JsonReader& r) {
    r.only_fields({"environment", "request_id", "timestamp", "trace_id", "span_id"});
    return RequestExtension{r.optional_string("environment"), r.optional_string("request_id"),
                            r.optional_string("timestamp"), r.optional_string("trace_id"),
                            r.optional_string("span_id")};
}

ConversationContext read_conversation(const JsonReader& r) {
    r.only_fields({"history", "summary", "topics"});
    ConversationContext c;
    if (auto history = r.find("history"))
        c.history = messages_from_json(history->json(), history->path());
    c.summary = r.optional_string("summary");
    c.topics = r.strings_or_empty("topics");
    return c;
}

AgentExtension read_agent(const JsonReader& r) {
    r.only_fields({"input", "session_id", "conversation_id", "turn", "agent_id", "parent_agent_id",
                   "conversation"});
    AgentExtension a;
    a.input = r.optional_string("input");
    a.session_id = r.optional_string("session_id");
    a.conversation_id = r.optional_string("conversation_id");
    a.turn = r.optional_integer("turn");
    a.agent_id = r.optional_string("agent_id");
    a.parent_agent_id = r.optional_string("parent_agent_id");
    if (auto conversation = r.find("conversation"))
        a.conversation = read_conversation(*conversation);
    return a;
}

SubjectExtension read_subject(const JsonReader& r) {
    r.only_fields({"id", "type", "roles", "permissions", "teams", "claims"});
    SubjectExtension s;
    s.id = required_string(r, "id");
    s.type = enum_at<SubjectType>(r.at("type"), "subject type");
    s.roles = string_set(r, "roles");
    s.permissions = string_set(r, "permissions");
    s.teams = string_set(r, "teams");
    s.claims = r.object_or_empty("claims");
    return s;
}

ObjectSecurityProfile read_object_profile(const JsonReader& r) {
    r.only_fields({"managed_by", "permissions", "trust_domain", "data_scope"});
    return ObjectSecurityProfile{
        required_string(r, "managed_by"), r.strings_or_empty("permissions"),
        r.optional_string("trust_domain"), r.strings_or_empty("data_scope")};
}

RetentionPolicy read_retention(const JsonReader& r) {
    r.only_fields({"max_age_seconds", "policy", "delete_after"});
    return RetentionPolicy{r.optional_integer("max_age_seconds"), required_string(r, "policy"),
                           r.optional_string("delete_after")};
}

DataPolicy read_data_policy(const JsonReader& r) {
    r.only_fields({"apply_labels", "allowed_actions", "denied_actions", "retention"});
    DataPolicy d;
    d.apply_labels = r.strings_or_empty("apply_labels");
    if (auto allowed = r.find("allowed_actions")) d.allowed_actions = allowed->strings();
    d.denied_actions = r.strings_or_empty("denied_actions");
    if (auto retention = r.find("retention")) d.retention = read_retention(*retention);
    return d;
}

template <class T, class Read>
std::shared_ptr<const OrderedMap<T>> read_keyed(const JsonReader& r, std::string_view key,
                                                Read read) {
    auto value = r.find(key);
    if (!value || value->object().json().empty()) return nullptr;
    OrderedMap<T> out;
    for (const auto& [name, item] : value->members()) out.set(name, read(item));
    return std::make_shared<const OrderedMap<T>>(std::move(out));
}

SecurityExtension read_security(const JsonReader& r) {
    r.only_fields({"labels", "classification", "subject", "objects", "data"});
    SecurityExtension s;
    s.labels = string_set(r, "labels");
    s.classification = r.optional_string("classification");
    if (auto subject = r.find("subject"))
        s.subject = std::make_shared<const SubjectExtension>(read_subject(*subject));
    s.objects = read_keyed<ObjectSecurityProfile>(r, "objects", read_object_profile);
    s.data = read_keyed<DataPolicy>(r, "data", read_data_policy);
    return s;
}

std::optional<std::vector<Json>> optional_object_list(const JsonReader& r, std::string_view key) {
    auto value = r.find(key);
    if (!value) return std::nullopt;
    if (!value->is_array()) value->fail_expected("an array of objects");
    std::vector<Json> out;
    for (const JsonReader& item : value->elements()) out.push_back(item.object().json());
    return out;
}

MCPExtension read_mcp(const JsonReader& r) {
    r.only_fields({"tool", "resource", "prompt"});
    MCPExtension m;
    if (auto tool = r.find("tool")) {
        JsonReader t = object_at(tool->json(), tool->path(),
                                 {"name", "title", "description", "input_schema", "output_schema",
                                  "server_id", "namespace", "annotations"});
        m.tool = ToolMetadata{required_string(t, "name"),         t.optional_string("title"),
                              t.optional_string("description"),   t.optional_object("input_schema"),
                              t.optional_object("output_schema"), t.optional_string("server_id"),
                              t.optional_string("namespace"),     t.object_or_empty("annotations")};
    }
    if (auto resource = r.find("resource")) {
        JsonReader t =
            object_at(resource->json(), resource->path(),
                      {"uri", "name", "description", "mime_type", "server_id", "annotations"});
        m.resource =
            ResourceMetadata{required_string(t, "uri"),        t.optional_string("name"),
                             t.optional_string("description"), t.optional_string("mime_type"),
                             t.optional_string("server_id"),   t.object_or_empty("annotations")};
    }
    if (auto prompt = r.find("prompt")) {
        JsonReader t = object_at(prompt->json(), prompt->path(),
                                 {"name", "description", "arguments", "server_id", "annotations"});
        m.prompt = PromptMetadata{required_string(t, "name"), t.optional_string("description"),
                                  optional_object_list(t, "arguments"),
                                  t.optional_string("server_id"), t.object_or_empty("annotations")};
    }
    return m;
}

TokenUsage read_tokens(const JsonReader& r) {
    r.only_fields({"input_tokens", "output_tokens", "total_tokens"});
    return TokenUsage{r.at("input_tokens").integer(), r.at("output_tokens").integer(),
                      r.at("total_tokens").integer()};
}

CompletionExtension read_completion(const JsonReader& r) {
    r.only_fields({"stop_reason", "tokens", "model", "raw_format", "created_at", "latency_ms"});
    CompletionExtension c;
    c.stop_reason = optional_enum<StopReason>(r, "stop_reason", "stop_reason");
    if (auto tokens = r.find("tokens")) c.tokens = read_tokens(*tokens);
    c.model = r.optional_string("model");
    c.raw_format = r.optional_string("raw_format");
    c.created_at = r.optional_string("created_at");
    c.latency_ms = r.optional_integer("latency_ms");
    return c;
}

HttpExtension read_http(const JsonReader& r) {
    r.only_fields({"headers"});
    return HttpExtension{string_map(r, "headers")};
}

DelegationExtension read_delegation(const JsonReader& r) {
    if (!r.is_object()) r.fail_expected("an object or null");
    return DelegationExtension{r.json()};
}

ProvenanceExtension read_provenance(const JsonReader& r) {
    r.only_fields({"source", "message_id", "parent_id"});
    return ProvenanceExtension{r.optional_string("source"), r.optional_string("message_id"),
                               r.optional_string("parent_id")};
}

LLMExtension read_llm(const JsonReader& r) {
    r.only_fields({"model_id", "provider", "capabilities"});
    return LLMExtension{r.optional_string("model_id"), r.optional_string("provider"),
                        r.strings_or_empty("capabilities")};
}

FrameworkExtension read_framework(const JsonReader& r) {
    r.only_fields({"framework", "framework_version", "node_id", "graph_id", "metadata"});
    return FrameworkExtension{r.optional_string("framework"),
                              r.optional_string("framework_version"), r.optional_string("node_id"),
                              r.optional_string("graph_id"), r.object_or_empty("metadata")};
}

MetaExtension read_meta(const JsonReader& r) {
    r.only_fields({"tags", "scope", "properties"});
    return MetaExtension{string_set(r, "tags"), r.optional_string("scope"),
                         string_map(r, "properties")};
}

Extensions read_extensions(const JsonReader& r);

template <class T, class Read>
std::shared_ptr<const T> read_slot(const JsonReader& ext, std::string_view key, Read read) {
    auto value = ext.find(key);
    if (!value) return nullptr;
    return std::make_shared<const T>(read(*value));
}

// A whole value read for nlohmann's from_json: the path is the type's name ("request.turn: ...").
template <class T, class Read>
void read_root(const Json& json, const char* name, T& out, Read read) {
    out = read(JsonReader(std::string(), json, name));
}

}  // namespace

PartPtr part_from_json(const Json& json, std::string_view path_view) {
    const std::string path(path_view);
    const JsonReader part(std::string(), json, path);
    if (!part.is_object()) part.fail_expected("a content part object");
    if (!json.contains("content_type")) part.fail("missing 'content_type' discriminator");
    const ContentType type = enum_at<ContentType>(part.at("content_type"), "content_type");
    if (type == ContentType::text) {
        JsonReader r = object_at(json, path, {"content_type", "text"});
        return make_part(Text{required_string(r, "text")}, path);
    }
    if (type == ContentType::thinking) {  // + the provider's seal, when it has one
        JsonReader r = object_at(json, path, {"content_type", "text", "signature", "redacted"});
        Thinking thinking{required_string(r, "text"), r.optional_string("signature").value_or(""),
                          r.boolean_or("redacted", false)};
        if (thinking.redacted && !thinking.sealed())
            r.at("redacted").fail("a redacted thinking part needs its 'signature'");
        return make_part(std::move(thinking), path);
    }
    JsonReader r = object_at(json, path, {"content_type", "content"});
    const JsonReader body = r.at("content");
    return make_part(read_body(type, body.json(), body.path()), path);
}

Message message_from_json(const Json& json, std::string_view path_view) {
    JsonReader r = object_at(json, std::string(path_view),
                             {"schema_version", "role", "content", "channel", "extensions"});
    if (const auto version = r.optional_string("schema_version");
        version && *version != schema_version)
        JsonReader(std::string(), r.json(), r.path_of("schema_version"))
            .fail("unsupported schema_version " + json_quoted(*version) + " (expected \"2.0\")");
    const Role role = enum_at<Role>(r.at("role"), "role");
    Content content;
    if (auto parts = r.find("content")) {
        if (!parts->is_array()) parts->fail_expected("an array of content parts");
        for (const JsonReader& item : parts->elements())
            content.push_back(part_from_json(item.json(), item.path()));
    }
    const auto channel = optional_enum<Channel>(r, "channel", "channel");
    ExtensionsPtr ext;
    if (auto extensions = r.find("extensions")) {
        Extensions parsed = extensions_from_json(extensions->json(), extensions->path());
        if (!parsed.empty()) ext = std::make_shared<const Extensions>(std::move(parsed));
    }
    return Message(role, std::move(content), channel, std::move(ext));
}

std::vector<Message> messages_from_json(const Json& json, std::string_view path_view) {
    const JsonReader list(std::string(), json, std::string(path_view));
    if (!list.is_array()) list.fail_expected("an array of messages");
    std::vector<Message> out;
    out.reserve(json.size());
    for (const JsonReader& item : list.elements())
        out.push_back(message_from_json(item.json(), item.path()));
    return out;
}

Extensions extensions_from_json(const Json& json, std::string_view path) {
    return read_extensions(JsonReader(std::string(), json, std::string(path)));
}

namespace {

Extensions read_extensions(const JsonReader& r) {
    r.only_fields({"request", "agent", "http", "security", "delegation", "mcp", "completion",
                   "provenance", "llm", "framework", "meta", "custom"});
    Extensions e;
    e.request = read_slot<RequestExtension>(r, "request", read_request);
    e.agent = read_slot<AgentExtension>(r, "agent", read_agent);
    e.http = read_slot<HttpExtension>(r, "http", read_http);
    e.security = read_slot<SecurityExtension>(r, "security", read_security);
    e.delegation = read_slot<DelegationExtension>(r, "delegation", read_delegation);
    e.mcp = read_slot<MCPExtension>(r, "mcp", read_mcp);
    e.completion = read_slot<CompletionExtension>(r, "completion", read_completion);
    e.provenance = read_slot<ProvenanceExtension>(r, "provenance", read_provenance);
    e.llm = read_slot<LLMExtension>(r, "llm", read_llm);
    e.framework = read_slot<FrameworkExtension>(r, "framework", read_framework);
    e.meta = read_slot<MetaExtension>(r, "meta", read_meta);
    if (const auto custom = r.optional_object("custom"))
        e.custom = std::make_shared<const Json>(*custom);
    return e;
}

}  // namespace

void from_json(const Json& json, Message& message) {
    message = message_from_json(json);
}

void from_json(const Json& json, Extensions& ext) {
    ext = extensions_from_json(json);
}

void from_json(const Json& json, RequestExtension& ext) {
    read_root(json, "request", ext, read_request);
}
void from_json(const Json& json, AgentExtension& ext) {
    read_root(json, "agent", ext, read_agent);
}
void from_json(const Json& json, ConversationContext& ext) {
    read_root(json, "conversation", ext, read_conversation);
}
void from_json(const Json& json, HttpExtension& ext) {
    read_root(json, "http", ext, read_http);
}
void from_json(const Json& json, SecurityExtension& ext) {
    read_root(json, "security", ext, read_security);
}
void from_json(const Json& json, SubjectExtension& ext) {
    read_root(json, "subject", ext, read_subject);
}
void from_json(const Json& json, ObjectSecurityProfile& ext) {
    read_root(json, "object_profile", ext, read_object_profile);
}
void from_json(const Json& json, DataPolicy& ext) {
    read_root(json, "data_policy", ext, read_data_policy);
}
void from_json(const Json& json, RetentionPolicy& ext) {
    read_root(json, "retention", ext, read_retention);
}
void from_json(const Json& json, DelegationExtension& ext) {
    read_root(json, "delegation", ext, read_delegation);
}
void from_json(const Json& json, MCPExtension& ext) {
    read_root(json, "mcp", ext, read_mcp);
}
void from_json(const Json& json, CompletionExtension& ext) {
    read_root(json, "completion", ext, read_completion);
}
void from_json(const Json& json, TokenUsage& ext) {
    read_root(json, "tokens", ext, read_tokens);
}
void from_json(const Json& json, ProvenanceExtension& ext) {
    read_root(json, "provenance", ext, read_provenance);
}
void from_json(const Json& json, LLMExtension& ext) {
    read_root(json, "llm", ext, read_llm);
}
void from_json(const Json& json, FrameworkExtension& ext) {
    read_root(json, "framework", ext, read_framework);
}
void from_json(const Json& json, MetaExtension& ext) {
    read_root(json, "meta", ext, read_meta);
}

}  // namespace cmfpipe::cmf

// ContentPart has no empty state, so nlohmann constructs it from JSON here.
cmfpipe::cmf::ContentPart nlohmann::adl_serializer<cmfpipe::cmf::ContentPart>::from_json(
    const cmfpipe::Json& json) {
    return *cmfpipe::cmf::part_from_json(json);
}
