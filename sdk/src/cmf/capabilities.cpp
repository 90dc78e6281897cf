// Capability names and their implications.
#include "cmfpipe/cmf/capabilities.hpp"

#include <array>

namespace cmfpipe::cmf {
namespace {

constexpr std::array<std::string_view, capability_count> names{
    "read_subject", "read_roles",    "read_permissions", "read_teams",    "read_claims",
    "read_labels",  "append_labels", "read_headers",     "write_headers", "read_agent",
    "read_objects", "read_data",     "read_delegation",  "write_custom"};

std::uint32_t bit_of(Capability c) {
    return 1u << static_cast<unsigned>(c);
}

// The capability itself and everything it implies.
std::uint32_t closure(Capability c) {
    std::uint32_t bits = bit_of(c);
    switch (c) {
        case Capability::write_headers:
            bits |= bit_of(Capability::read_headers);
            break;
        case Capability::append_labels:
            bits |= bit_of(Capability::read_labels);
            break;
        case Capability::read_roles:
        case Capability::read_permissions:
        case Capability::read_teams:
        case Capability::read_claims:
            bits |= bit_of(Capability::read_subject);
            break;
        default:
            break;
    }
    return bits;
}

}  // namespace

std::string_view to_string(Capability capability) {
    const auto index = static_cast<std::size_t>(capability);
    return index < names.size() ? names[index] : std::string_view{"?"};
}

std::optional<Capability> capability_from_string(std::string_view name) {
    for (std::size_t i = 0; i < names.size(); ++i)
        if (names[i] == name) return static_cast<Capability>(i);
    return std::nullopt;
}

std::string_view capability_names() {
    static const std::string joined = [] {
        std::string out;
        for (auto name : names) {
            if (!out.empty()) out += ", ";
            out += name;
        }
        return out;
    }();
    return joined;
}

Capability parse_capability(std::string_view name, const SourceLocation& where) {
    if (auto c = capability_from_string(name)) return *c;
    throw ConfigError("unknown capability '" + std::string(name) +
                          "' (known: " + std::string(capability_names()) + ")",
                      where);
}

CapabilitySet::CapabilitySet(std::initializer_list<Capability> capabilities) {
    for (auto c : capabilities) add(c);
}

CapabilitySet CapabilitySet::all() {
    CapabilitySet set;
    for (int i = 0; i < capability_count; ++i) set.add(static_cast<Capability>(i));
    return set;
}

CapabilitySet CapabilitySet::parse(const std::vector<std::string>& list,
                                   const SourceLocation& where) {
    CapabilitySet set;
    for (const auto& name : list) set.add(parse_capability(name, where));
    return set;
}

CapabilitySet& CapabilitySet::add(Capability capability) {
    declared_ |= bit_of(capability);
    effective_ |= closure(capability);
    return *this;
}

std::vector<Capability> CapabilitySet::list() const {
    std::vector<Capability> out;
    for (int i = 0; i < capability_count; ++i)
        if (has(static_cast<Capability>(i))) out.push_back(static_cast<Capability>(i));
    return out;
}

std::vector<std::string> CapabilitySet::declared_names() const {
    std::vector<std::string> out;
    for (int i = 0; i < capability_count; ++i)
        if (declared(static_cast<Capability>(i)))
            out.emplace_back(names[static_cast<std::size_t>(i)]);
    return out;
}

}  // namespace cmfpipe::cmf
