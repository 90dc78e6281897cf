#pragma once
// CMF extensions (spec §3): the typed context a message carries. Extensions is a record of slots,
// each a shared_ptr<const T> (null = absent), so a modified copy of a message replaces one slot
// pointer and shares the rest. Tiers (enforced by the pipeline, not here):
//   immutable: request, agent, delegation, mcp, completion, provenance, llm, framework, meta,
//              security.subject, security.objects, security.data
//   monotonic: security.labels (add only)        guarded: http (write_headers)
//   mutable:   custom
// Sets (labels, roles, permissions, teams, tags) are std::set: sorted, unique, sorted on the wire.
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cmfpipe/cmf/enums.hpp"
#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/json.hpp"

namespace cmfpipe::cmf {

// A JSON object of T with its key order kept (headers, objects, data, properties).
// Keys are unique: set() replaces an existing key in place.
template <class T>
class OrderedMap {
  public:
    using value_type = std::pair<std::string, T>;
    OrderedMap() = default;
    OrderedMap(std::initializer_list<value_type> entries) {
        for (const auto& e : entries) set(e.first, e.second);
    }
    const T* find(std::string_view key) const {
        for (const auto& e : entries_)
            if (e.first == key) return &e.second;
        return nullptr;
    }
    void set(std::string key, T value) {
        for (auto& e : entries_)
            if (e.first == key) {
                e.second = std::move(value);
                return;
            }
        entries_.emplace_back(std::move(key), std::move(value));
    }
    bool erase(std::string_view key) {
        for (auto it = entries_.begin(); it != entries_.end(); ++it)
            if (it->first == key) {
                entries_.erase(it);
                return true;
            }
        return false;
    }
    std::size_t size() const { return entries_.size(); }
    bool empty() const { return entries_.empty(); }
    auto begin() const { return entries_.begin(); }
    auto end() const { return entries_.end(); }
    bool operator==(const OrderedMap&) const = default;

  private:
    std::vector<value_type> entries_{};
};

using StringSet = std::set<std::string, std::less<>>;

// §3.3 (immutable, base tier: visible without capabilities).
struct RequestExtension {
    std::optional<std::string> environment{};
    std::optional<std::string> request_id{};
    std::optional<std::string> timestamp{};
    std::optional<std::string> trace_id{};
    std::optional<std::string> span_id{};
    bool operator==(const RequestExtension&) const = default;
};

struct ConversationContext {
    std::optional<std::vector<Message>> history{};
    std::optional<std::string> summary{};
    std::vector<std::string> topics{};
    bool operator==(const ConversationContext&) const = default;
};

// §3.4 (immutable, read_agent).
struct AgentExtension {
    std::optional<std::string> input{};
    std::optional<std::string> session_id{};
    std::optional<std::string> conversation_id{};
    std::optional<std::int64_t> turn{};
    std::optional<std::string> agent_id{};
    std::optional<std::string> parent_agent_id{};
    std::optional<ConversationContext> conversation{};
    bool operator==(const AgentExtension&) const = default;
};

// §3.5 (guarded: read_headers / write_headers). Keys as given; look-ups in views ignore case.
struct HttpExtension {
    OrderedMap<std::string> headers{};
    bool operator==(const HttpExtension&) const = default;
};

// §3.6.1 (immutable). id/type need read_subject; each set needs its own read_ capability.
struct SubjectExtension {
    std::string id{};
    SubjectType type = SubjectType::user;
    StringSet roles{};
    StringSet permissions{};
    StringSet teams{};
    Json claims = Json::object();  // always a JSON object
    bool operator==(const SubjectExtension&) const = default;
};

// §3.6.2: access requirements of one entity (tool name, resource URI, prompt name).
struct ObjectSecurityProfile {
    std::string managed_by{};  // "host" | "tool" | "both"
    std::vector<std::string> permissions{};
    std::optional<std::string> trust_domain{};  // "internal" | "external" | "privileged"
    std::vector<std::string> data_scope{};
    bool operator==(const ObjectSecurityProfile&) const = default;
};

struct RetentionPolicy {
    std::optional<std::int64_t> max_age_seconds{};
    std::string policy{};  // "session" | "transient" | "persistent" | "none"
    std::optional<std::string> delete_after{};
    bool operator==(const RetentionPolicy&) const = default;
};

// §3.6.3: data governance of one entity's output.
struct DataPolicy {
    std::vector<std::string> apply_labels{};
    std::optional<std::vector<std::string>> allowed_actions{};  // nullopt = unrestricted
    std::vector<std::string> denied_actions{};
    std::optional<RetentionPolicy> retention{};
    bool operator==(const DataPolicy&) const = default;
};

using ObjectProfiles = OrderedMap<ObjectSecurityProfile>;
using DataPolicies = OrderedMap<DataPolicy>;

// §3.6 (labels monotonic; subject, objects, data immutable and shared by pointer).
struct SecurityExtension {
    StringSet labels{};
    std::optional<std::string> classification{};
    std::shared_ptr<const SubjectExtension> subject{};  // null = none
    std::shared_ptr<const ObjectProfiles> objects{};    // null = empty
    std::shared_ptr<const DataPolicies> data{};         // null = empty
    bool operator==(const SecurityExtension& other) const;
};

// Delegation context of the reference implementation (read_delegation). CMF v2 does not
// specify its fields, so it is carried verbatim as a JSON object.
struct DelegationExtension {
    Json value = Json::object();
    bool operator==(const DelegationExtension&) const = default;
};

// §3.7 (immutable). JSON: {"tool": {...} | null, "resource": ..., "prompt": ...}.
struct ToolMetadata {
    std::string name{};
    std::optional<std::string> title{};
    std::optional<std::string> description{};
    std::optional<Json> input_schema{};
    std::optional<Json> output_schema{};
    std::optional<std::string> server_id{};
    std::optional<std::string> namespace_{};  // "namespace" on the wire
    Json annotations = Json::object();
    bool operator==(const ToolMetadata&) const = default;
};
struct ResourceMetadata {
    std::string uri{};
    std::optional<std::string> name{};
    std::optional<std::string> description{};
    std::optional<std::string> mime_type{};
    std::optional<std::string> server_id{};
    Json annotations = Json::object();
    bool operator==(const ResourceMetadata&) const = default;
};
struct PromptMetadata {
    std::string name{};
    std::optional<std::string> description{};
    std::optional<std::vector<Json>> arguments{};  // each {name, description, required}
    std::optional<std::string> server_id{};
    Json annotations = Json::object();
    bool operator==(const PromptMetadata&) const = default;
};
struct MCPExtension {
    std::optional<ToolMetadata> tool{};
    std::optional<ResourceMetadata> resource{};
    std::optional<PromptMetadata> prompt{};
    bool operator==(const MCPExtension&) const = default;
};

// §3.8 (immutable).
struct TokenUsage {
    std::int64_t input_tokens = 0;
    std::int64_t output_tokens = 0;
    std::int64_t total_tokens = 0;
    bool operator==(const TokenUsage&) const = default;
};
struct CompletionExtension {
    std::optional<StopReason> stop_reason{};
    std::optional<TokenUsage> tokens{};
    std::optional<std::string> model{};
    std::optional<std::string> raw_format{};
    std::optional<std::string> created_at{};
    std::optional<std::int64_t> latency_ms{};
    bool operator==(const CompletionExtension&) const = default;
};

// §3.9 (immutable).
struct ProvenanceExtension {
    std::optional<std::string> source{};
    std::optional<std::string> message_id{};
    std::optional<std::string> parent_id{};
    bool operator==(const ProvenanceExtension&) const = default;
};

// §3.10 (immutable).
struct LLMExtension {
    std::optional<std::string> model_id{};
    std::optional<std::string> provider{};
    std::vector<std::string> capabilities{};
    bool operator==(const LLMExtension&) const = default;
};

// §3.11 (immutable).
struct FrameworkExtension {
    std::optional<std::string> framework{};
    std::optional<std::string> framework_version{};
    std::optional<std::string> node_id{};
    std::optional<std::string> graph_id{};
    Json metadata = Json::object();
    bool operator==(const FrameworkExtension&) const = default;
};

// Reference §3.12: host-provided entity tags, scope and properties (immutable).
struct MetaExtension {
    StringSet tags{};
    std::optional<std::string> scope{};
    OrderedMap<std::string> properties{};
    bool operator==(const MetaExtension&) const = default;
};

// The slots, in wire order. Build one by value, then share it (std::make_shared<const Extensions>).
struct Extensions {
    std::shared_ptr<const RequestExtension> request{};
    std::shared_ptr<const AgentExtension> agent{};
    std::shared_ptr<const HttpExtension> http{};
    std::shared_ptr<const SecurityExtension> security{};
    std::shared_ptr<const DelegationExtension> delegation{};
    std::shared_ptr<const MCPExtension> mcp{};
    std::shared_ptr<const CompletionExtension> completion{};
    std::shared_ptr<const ProvenanceExtension> provenance{};
    std::shared_ptr<const LLMExtension> llm{};
    std::shared_ptr<const FrameworkExtension> framework{};
    std::shared_ptr<const MetaExtension> meta{};
    CustomPtr custom{};  // a JSON object (mutable tier)

    bool empty() const;
    // Slot-by-slot value equality (null equals only null).
    bool operator==(const Extensions& other) const;
};

}  // namespace cmfpipe::cmf
