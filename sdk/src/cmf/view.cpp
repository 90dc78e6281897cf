// MessageView: per-kind semantics computed once at construction, flat accessors over the
// (already filtered) extensions, and the reference's dict shape.
#include "cmfpipe/cmf/view.hpp"

#include "cmfpipe/cmf/filter.hpp"
#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/cmf/uri_pattern.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/wire/json_text.hpp"  // Python json.dumps spacing, as the reference scans

namespace cmfpipe::cmf {
namespace {

const std::optional<std::string> no_string;
const StringSet no_set;
const OrderedMap<std::string> no_headers;

// Text, thinking and media: an assistant produces, a tool answers, everyone else sends.
ViewAction speaker_action(Role role) {
    switch (role) {
        case Role::assistant:
            return ViewAction::generate;
        case Role::tool:
            return ViewAction::receive;
        default:
            return ViewAction::send;
    }
}

bool speaker_is_pre(Role role) {
    return role != Role::assistant && role != Role::tool;
}

char lower(char c) {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (lower(a[i]) != lower(b[i])) return false;
    return true;
}

// Never handed to external policy engines.
bool is_sensitive_header(std::string_view name) {
    return iequals(name, "authorization") || iequals(name, "cookie") || iequals(name, "x-api-key");
}

Json opt(const std::optional<std::string>& value) {
    return value ? Json(*value) : Json(nullptr);
}

Json sorted(const StringSet& set) {
    Json out = Json::array();
    for (const auto& item : set) out.push_back(item);
    return out;
}

std::int64_t utf8_size(const std::string& text) {
    return static_cast<std::int64_t>(text.size());
}

// The text of a prompt_result's messages, for scanning when it has no single content string.
std::optional<std::string> rendered_text(const PromptResult& result) {
    std::string out;
    bool any = false;
    for (const auto& message : result.messages)
        for (const auto& part : message.content())
            if (const auto* text = part->text_if()) {
                if (any) out += '\n';
                out += *text;
                any = true;
            }
    return any ? std::optional<std::string>(std::move(out)) : std::nullopt;
}

}  // namespace

MessageView::MessageView(PartPtr part, Role role, ExtensionsPtr extensions, std::string hook)
    : part_(std::move(part)),
      role_(role),
      extensions_(std::move(extensions)),
      hook_(std::move(hook)) {
    if (!part_) throw ValueError("cmf::MessageView: part is null");
    if (!extensions_) extensions_ = std::make_shared<const Extensions>();
    pre_ = speaker_is_pre(role_);
    action_ = speaker_action(role_);
    const auto& value = part_->value();
    if (const auto* p = std::get_if<Text>(&value)) {
        content_ = p->text;
    } else if (const auto* p = std::get_if<Thinking>(&value)) {
        content_ = p->text;
        // Not in the spec: a provider-signed part (immutable in the pipeline) says so.
        if (p->sealed()) properties_ = Json{{"sealed", true}, {"redacted", p->redacted}};
    } else if (const auto* p = std::get_if<ToolCall>(&value)) {
        pre_ = true;
        action_ = ViewAction::execute;
        name_ = p->name;
        uri_ = "tool://" + p->namespace_.value_or("_") + "/" + p->name;
        content_ = wire::dump_spaced(p->arguments);
        properties_ = Json{{"namespace", opt(p->namespace_)}, {"tool_id", p->tool_call_id}};
    } else if (const auto* p = std::get_if<ToolResult>(&value)) {
        pre_ = false;
        action_ = ViewAction::receive;
        name_ = p->tool_name;
        uri_ = "tool_result://" + p->tool_name;
        if (p->content.is_string())
            content_ = p->content.get<std::string>();
        else if (!p->content.is_null())
            content_ = wire::dump_spaced(p->content);
        properties_ = Json{{"is_error", p->is_error}, {"tool_name", p->tool_name}};
    } else if (const auto* p = std::get_if<Resource>(&value)) {
        pre_ = false;
        action_ = ViewAction::read;
        name_ = p->name;
        uri_ = p->uri;
        content_ = p->content;
        mime_type_ = p->mime_type;
        if (!content_) size_bytes_ = p->size_bytes;
        properties_ = Json{{"resource_type", to_string(p->resource_type)},
                           {"version", opt(p->version)},
                           {"annotations", p->annotations}};
    } else if (const auto* p = std::get_if<ResourceReference>(&value)) {
        pre_ = true;
        action_ = ViewAction::read;
        name_ = p->name;
        uri_ = p->uri;
    } else if (const auto* p = std::get_if<PromptRequest>(&value)) {
        pre_ = true;
        action_ = ViewAction::invoke;
        name_ = p->name;
        uri_ = "prompt://" + p->server_id.value_or("_") + "/" + p->name;
        content_ = wire::dump_spaced(p->arguments);
        properties_ = Json{{"server_id", opt(p->server_id)}};
    } else if (const auto* p = std::get_if<PromptResult>(&value)) {
        pre_ = false;
        action_ = ViewAction::receive;
        name_ = p->prompt_name;
        uri_ = "prompt_result://" + p->prompt_name;
        content_ = p->content ? p->content : rendered_text(*p);
        properties_ = Json{{"is_error", p->is_error}, {"message_count", p->messages.size()}};
    } else if (const auto* p = std::get_if<ImageSource>(&value)) {
        mime_type_ = p->media_type;
    } else if (const auto* p = std::get_if<VideoSource>(&value)) {
        mime_type_ = p->media_type;
    } else if (const auto* p = std::get_if<AudioSource>(&value)) {
        mime_type_ = p->media_type;
    } else if (const auto* p = std::get_if<DocumentSource>(&value)) {
        mime_type_ = p->media_type;
    }
    if (content_) size_bytes_ = utf8_size(*content_);
}

bool MessageView::is_tool() const {
    return kind() == ViewKind::tool_call || kind() == ViewKind::tool_result;
}
bool MessageView::is_prompt() const {
    return kind() == ViewKind::prompt_request || kind() == ViewKind::prompt_result;
}
bool MessageView::is_resource() const {
    return kind() == ViewKind::resource || kind() == ViewKind::resource_ref;
}
bool MessageView::is_text() const {
    return kind() == ViewKind::text || kind() == ViewKind::thinking;
}
bool MessageView::is_media() const {
    const auto k = kind();
    return k == ViewKind::image || k == ViewKind::video || k == ViewKind::audio ||
           k == ViewKind::document;
}

const Json* MessageView::args() const {
    if (const auto* p = part_->get_if<ToolCall>()) return &p->arguments;
    if (const auto* p = part_->get_if<PromptRequest>()) return &p->arguments;
    return nullptr;
}

const Json* MessageView::get_arg(std::string_view name) const {
    const Json* arguments = args();
    if (!arguments) return nullptr;
    auto it = arguments->find(name);
    return it == arguments->end() ? nullptr : &*it;
}

const Json* MessageView::get_property(std::string_view name) const {
    auto it = properties_.find(name);
    return it == properties_.end() ? nullptr : &*it;
}

const std::optional<std::string>& MessageView::environment() const {
    return extensions_->request ? extensions_->request->environment : no_string;
}
const std::optional<std::string>& MessageView::request_id() const {
    return extensions_->request ? extensions_->request->request_id : no_string;
}
const SubjectExtension* MessageView::subject() const {
    return extensions_->security ? extensions_->security->subject.get() : nullptr;
}
const StringSet& MessageView::roles() const {
    return subject() ? subject()->roles : no_set;
}
const StringSet& MessageView::permissions() const {
    return subject() ? subject()->permissions : no_set;
}
const StringSet& MessageView::teams() const {
    return subject() ? subject()->teams : no_set;
}
const StringSet& MessageView::labels() const {
    return extensions_->security ? extensions_->security->labels : no_set;
}
const OrderedMap<std::string>& MessageView::headers() const {
    return extensions_->http ? extensions_->http->headers : no_headers;
}

#define CMFPIPE_CMF_AGENT_FIELD(NAME, FIELD)                               \
    const std::optional<std::string>& MessageView::NAME() const {          \
        return extensions_->agent ? extensions_->agent->FIELD : no_string; \
    }
CMFPIPE_CMF_AGENT_FIELD(agent_input, input)
CMFPIPE_CMF_AGENT_FIELD(session_id, session_id)
CMFPIPE_CMF_AGENT_FIELD(conversation_id, conversation_id)
CMFPIPE_CMF_AGENT_FIELD(agent_id, agent_id)
CMFPIPE_CMF_AGENT_FIELD(parent_agent_id, parent_agent_id)
#undef CMFPIPE_CMF_AGENT_FIELD

std::optional<std::int64_t> MessageView::turn() const {
    return extensions_->agent ? extensions_->agent->turn : std::nullopt;
}

template <class T>
const T* MessageView::entry_for(const std::shared_ptr<const OrderedMap<T>>& map) const {
    if (!map) return nullptr;
    if (name_)
        if (const T* found = map->find(*name_)) return found;
    if (is_resource() && uri_) return map->find(*uri_);
    return nullptr;
}

const ObjectSecurityProfile* MessageView::object() const {
    return extensions_->security ? entry_for(extensions_->security->objects) : nullptr;
}
const DataPolicy* MessageView::data_policy() const {
    return extensions_->security ? entry_for(extensions_->security->data) : nullptr;
}

bool MessageView::has_role(std::string_view role) const {
    return roles().contains(role);
}
bool MessageView::has_permission(std::string_view permission) const {
    return permissions().contains(permission);
}
bool MessageView::has_label(std::string_view label) const {
    return labels().contains(label);
}

const std::string* MessageView::get_header(std::string_view name) const {
    for (const auto& [key, value] : headers())
        if (iequals(key, name)) return &value;
    return nullptr;
}

bool MessageView::matches_uri_pattern(std::string_view pattern) const {
    return uri_ && cmf::matches_uri_pattern(*uri_, pattern);
}

Json MessageView::to_dict(const ViewOptions& options) const {
    Json out = Json::object();
    out["kind"] = to_string(kind());
    out["role"] = to_string(role_);
    out["is_pre"] = is_pre();
    out["is_post"] = is_post();
    out["action"] = to_string(action_);
    if (!hook_.empty()) out["hook"] = hook_;
    if (uri_) out["uri"] = *uri_;
    if (name_) out["name"] = *name_;
    if (options.include_content && content_) out["content"] = *content_;
    if (size_bytes_) out["size_bytes"] = *size_bytes_;
    if (mime_type_) out["mime_type"] = *mime_type_;
    if (options.include_content)
        if (const Json* arguments = args()) out["arguments"] = *arguments;
    if (!properties_.empty()) out["properties"] = properties_;
    if (!options.include_context) return out;

    Json ext = Json::object();
    if (const SubjectExtension* s = subject())
        ext["subject"] = Json{{"id", s->id},
                              {"type", to_string(s->type)},
                              {"roles", sorted(s->roles)},
                              {"permissions", sorted(s->permissions)},
                              {"teams", sorted(s->teams)}};
    if (environment()) ext["environment"] = *environment();
    if (!labels().empty()) ext["labels"] = sorted(labels());
    Json headers_out = Json::object();
    for (const auto& [key, value] : headers())
        if (!is_sensitive_header(key)) headers_out[key] = value;
    if (!headers_out.empty()) ext["headers"] = std::move(headers_out);
    if (const ObjectSecurityProfile* o = object()) ext["object"] = *o;
    if (const DataPolicy* d = data_policy()) {
        Json data = Json::object();
        data["apply_labels"] = d->apply_labels;
        if (d->allowed_actions) data["allowed_actions"] = *d->allowed_actions;
        data["denied_actions"] = d->denied_actions;
        if (d->retention) data["retention"] = *d->retention;
        ext["data"] = std::move(data);
    }
    if (const auto& a = extensions_->agent)
        ext["agent"] = Json{{"input", opt(a->input)},
                            {"session_id", opt(a->session_id)},
                            {"conversation_id", opt(a->conversation_id)},
                            {"turn", a->turn ? Json(*a->turn) : Json(nullptr)},
                            {"agent_id", opt(a->agent_id)},
                            {"parent_agent_id", opt(a->parent_agent_id)}};
    if (!ext.empty()) out["extensions"] = std::move(ext);
    return out;
}

Json MessageView::to_opa_input(const ViewOptions& options) const {
    return Json{{"input", to_dict(options)}};
}

std::vector<MessageView> iter_views(const Message& message, const CapabilitySet& caps,
                                    std::string_view hook) {
    const Message shown = filter_message(message, caps);
    std::vector<MessageView> views;
    views.reserve(shown.size());
    for (const auto& part : shown.content())
        views.emplace_back(part, shown.role(), shown.extensions_ptr(), std::string(hook));
    return views;
}

}  // namespace cmfpipe::cmf
