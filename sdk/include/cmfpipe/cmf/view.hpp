#pragma once
// MessageView (spec §4): the policy surface of one content part. iter_views() decomposes a
// message into one view per part, in order, for all twelve kinds; each view adds a synthetic
// URI, direction, semantic action, scannable text and capability-gated flat accessors over the
// extensions. A view holds shared pointers to immutable data and hands out only const access:
// nothing reachable from it can change the message. Views are computed once (content, URI and
// properties at construction), so reading them repeatedly costs nothing.
//
//   for (const auto& v : iter_views(message, caps)) {
//       if (v.kind() == ViewKind::tool_call && v.matches_uri_pattern("tool://hr-server/*")
//           && !v.has_role("hr-manager")) deny(...);
//   }
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/cmf/capabilities.hpp"
#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/json.hpp"

namespace cmfpipe::cmf {

struct ViewOptions {
    bool include_content = true;  // "content" and "arguments" in to_dict
    bool include_context = true;  // the "extensions" block in to_dict
};

class MessageView {
  public:
    // `extensions` must already be filtered for the consumer (iter_views does it).
    MessageView(PartPtr part, Role role, ExtensionsPtr extensions, std::string hook = {});

    ViewKind kind() const { return part_->type(); }
    Role role() const { return role_; }
    ViewAction action() const { return action_; }
    // The hook the view was made for ("" when none), reported by to_dict as "hook".
    const std::string& hook() const { return hook_; }

    // Direction (§4.4): tool_call, prompt_request, resource_ref pre; tool_result, prompt_result,
    // resource post; text, thinking, media post for assistant and tool roles, pre otherwise.
    bool is_pre() const { return pre_; }
    bool is_post() const { return !pre_; }
    bool is_tool() const;
    bool is_prompt() const;
    bool is_resource() const;
    bool is_text() const;
    bool is_media() const;

    // Scannable text: text/thinking as is; JSON of arguments (tool_call, prompt_request); the
    // result (tool_result: a string as is, other values as JSON); a resource's text content; a
    // prompt_result's content (or its messages' text). nullopt for media and resource_ref.
    const std::optional<std::string>& content() const { return content_; }
    bool has_content() const { return content_.has_value(); }
    // tool://NS/NAME ("_" = no namespace), tool_result://NAME, prompt://SERVER/NAME ("_" = no
    // server), prompt_result://NAME, the resource's URI; nullopt for text, thinking, media.
    const std::optional<std::string>& uri() const { return uri_; }
    const std::optional<std::string>& name() const { return name_; }
    const std::optional<std::string>& mime_type() const { return mime_type_; }
    // UTF-8 length of content(); for a resource without text, its size_bytes field.
    std::optional<std::int64_t> size_bytes() const { return size_bytes_; }
    // The arguments object of tool_call / prompt_request; nullptr for other kinds.
    const Json* args() const;
    const Json* get_arg(std::string_view name) const;
    bool has_arg(std::string_view name) const { return get_arg(name) != nullptr; }
    // Type-specific properties (§4.6) as a JSON object (empty for kinds without any).
    const Json& properties() const { return properties_; }
    const Json* get_property(std::string_view name) const;

    const ContentPart& part() const { return *part_; }
    const PartPtr& part_ptr() const { return part_; }
    // The (filtered) extensions the view sees.
    const Extensions& extensions() const { return *extensions_; }

    // Flat accessors (§4.5). Empty / nullopt / nullptr when absent or not granted.
    const std::optional<std::string>& environment() const;
    const std::optional<std::string>& request_id() const;
    const SubjectExtension* subject() const;
    const StringSet& roles() const;
    const StringSet& permissions() const;
    const StringSet& teams() const;
    const StringSet& labels() const;
    const OrderedMap<std::string>& headers() const;
    const std::optional<std::string>& agent_input() const;
    const std::optional<std::string>& session_id() const;
    const std::optional<std::string>& conversation_id() const;
    std::optional<std::int64_t> turn() const;
    const std::optional<std::string>& agent_id() const;
    const std::optional<std::string>& parent_agent_id() const;
    // security.objects / security.data entry for name() (resources: name(), then uri()).
    const ObjectSecurityProfile* object() const;
    const DataPolicy* data_policy() const;

    bool has_role(std::string_view role) const;
    bool has_permission(std::string_view permission) const;
    bool has_label(std::string_view label) const;
    bool has_header(std::string_view name) const { return get_header(name) != nullptr; }
    // Case-insensitive (ASCII) header look-up.
    const std::string* get_header(std::string_view name) const;
    bool matches_uri_pattern(std::string_view pattern) const;

    // The reference's dict (keys in its order; absent values left out). Authorization, Cookie
    // and X-API-Key headers are stripped (case-insensitively).
    Json to_dict(const ViewOptions& options = {}) const;
    // {"input": to_dict(options)}
    Json to_opa_input(const ViewOptions& options = {}) const;

  private:
    template <class T>
    const T* entry_for(const std::shared_ptr<const OrderedMap<T>>& map) const;

    PartPtr part_;
    Role role_;
    ExtensionsPtr extensions_;
    std::string hook_;
    bool pre_ = true;
    ViewAction action_ = ViewAction::send;
    std::optional<std::string> content_;
    std::optional<std::string> uri_;
    std::optional<std::string> name_;
    std::optional<std::string> mime_type_;
    std::optional<std::int64_t> size_bytes_;
    Json properties_ = Json::object();
};

// One view per part of `message`, in order, seeing the message filtered for `caps` (cmf/filter.hpp:
// extensions and nested messages; CapabilitySet::all() for an unfiltered view).
std::vector<MessageView> iter_views(const Message& message, const CapabilitySet& caps,
                                    std::string_view hook = {});

}  // namespace cmfpipe::cmf
