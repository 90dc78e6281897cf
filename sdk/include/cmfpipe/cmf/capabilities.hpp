#pragma once
// What a processor may see and change (reference plugin-framework spec §6.1). A closed set:
// an unknown name is a ConfigError that names it. Implications are applied on insertion:
//   write_headers -> read_headers      append_labels -> read_labels
//   read_roles | read_permissions | read_teams | read_claims -> read_subject
// so has(read_headers) is true for a set declared as {write_headers}; declared() keeps what
// was written, for messages and listings.
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/errors.hpp"

namespace cmfpipe::cmf {

enum class Capability : std::uint8_t {
    read_subject,      // security.subject id and type
    read_roles,        // security.subject.roles
    read_permissions,  // security.subject.permissions
    read_teams,        // security.subject.teams
    read_claims,       // security.subject.claims
    read_labels,       // security.labels
    append_labels,     // add to security.labels (monotonic)
    read_headers,      // http.headers
    write_headers,     // change http.headers (guarded)
    read_agent,        // agent
    read_objects,      // security.objects (the reference shows it to all; see cmf/filter.hpp)
    read_data,         // security.data (likewise)
    read_delegation,   // delegation
    write_custom,      // custom (readable by all)
};
inline constexpr int capability_count = 14;

std::string_view to_string(Capability capability);
std::optional<Capability> capability_from_string(std::string_view name);
// ConfigError "unknown capability 'x' (known: read_subject, ...)" at `where` when not in the set.
Capability parse_capability(std::string_view name, const SourceLocation& where = {});
// All names, comma separated (for messages).
std::string_view capability_names();

class CapabilitySet {
  public:
    constexpr CapabilitySet() = default;
    CapabilitySet(std::initializer_list<Capability> capabilities);
    // Every capability.
    static CapabilitySet all();
    // From names (YAML lists); the first unknown name throws ConfigError at `where`.
    static CapabilitySet parse(const std::vector<std::string>& names,
                               const SourceLocation& where = {});

    // Adds the capability and what it implies.
    CapabilitySet& add(Capability capability);
    // Effective: declared or implied.
    bool has(Capability capability) const { return (effective_ >> bit(capability)) & 1u; }
    bool declared(Capability capability) const { return (declared_ >> bit(capability)) & 1u; }
    bool empty() const { return effective_ == 0; }
    // Effective capabilities in enum order.
    std::vector<Capability> list() const;
    // Declared names in enum order, e.g. ["read_subject", "write_headers"].
    std::vector<std::string> declared_names() const;

    bool operator==(const CapabilitySet& other) const { return effective_ == other.effective_; }

  private:
    static constexpr unsigned bit(Capability c) { return static_cast<unsigned>(c); }
    std::uint32_t declared_ = 0;
    std::uint32_t effective_ = 0;
};

}  // namespace cmfpipe::cmf
