// Capabilities: the closed set, parsing, implications.
#include <catch2/catch.hpp>

#include "cmfpipe/cmf/capabilities.hpp"

using namespace cmfpipe;
using namespace cmfpipe::cmf;

TEST_CASE("every capability name parses back to itself", "[cmf][capabilities]") {
    for (int i = 0; i < capability_count; ++i) {
        const auto c = static_cast<Capability>(i);
        CHECK(capability_from_string(to_string(c)) == c);
    }
    CHECK(capability_names() ==
          "read_subject, read_roles, read_permissions, read_teams, read_claims, read_labels, "
          "append_labels, "
          "read_headers, write_headers, read_agent, read_objects, read_data, read_delegation, "
          "write_custom");
    CHECK_FALSE(capability_from_string("READ_SUBJECT").has_value());
}

TEST_CASE("an unknown capability is a ConfigError naming it", "[cmf][capabilities]") {
    try {
        CapabilitySet::parse({"read_subject", "read_everything"},
                             SourceLocation{"pipeline.yaml", 7, 19});
        FAIL("no error");
    } catch (const ConfigError& e) {
        CHECK(
            std::string(e.what()) ==
            "pipeline.yaml:7:19: unknown capability 'read_everything' (known: read_subject, "
            "read_roles, "
            "read_permissions, read_teams, read_claims, read_labels, append_labels, read_headers, "
            "write_headers, read_agent, read_objects, read_data, read_delegation, write_custom)");
    }
}

TEST_CASE("implications are applied, declarations are kept", "[cmf][capabilities]") {
    const auto set = CapabilitySet::parse({"write_headers", "append_labels", "read_teams"});
    CHECK(set.has(Capability::read_headers));
    CHECK(set.has(Capability::write_headers));
    CHECK(set.has(Capability::read_labels));
    CHECK(set.has(Capability::read_subject));
    CHECK(set.has(Capability::read_teams));
    CHECK_FALSE(set.has(Capability::read_roles));
    CHECK_FALSE(set.has(Capability::read_agent));
    CHECK_FALSE(set.declared(Capability::read_headers));
    CHECK(set.declared_names() ==
          std::vector<std::string>{"read_teams", "append_labels", "write_headers"});
    CHECK(set.list() == std::vector<Capability>{Capability::read_subject, Capability::read_teams,
                                                Capability::read_labels, Capability::append_labels,
                                                Capability::read_headers,
                                                Capability::write_headers});
    // read_headers alone does not grant writing; read_subject alone grants no subject field.
    const CapabilitySet read_only{Capability::read_headers, Capability::read_subject};
    CHECK_FALSE(read_only.has(Capability::write_headers));
    CHECK_FALSE(read_only.has(Capability::read_roles));
    CHECK(CapabilitySet{}.empty());
    CHECK(CapabilitySet::all().list().size() == capability_count);
}
