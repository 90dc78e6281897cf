// Pipeline YAML: what is read, the defaults, and every mistake reported at its line:col.
#include <catch2/catch.hpp>

#include "fixture.hpp"

using namespace pipeline_test;
using Catch::Matchers::Equals;

namespace {

pl::PipelineConfig parse(const std::string& yaml) {
    return pl::parse_pipeline_config(yaml, "p.yaml", "/base");
}

// The ConfigError text ("p.yaml:line:col: message") of a config that must be refused.
std::string refusal(const std::string& yaml) {
    try {
        parse(yaml);
    } catch (const cmfpipe::ConfigError& e) {
        return e.what();
    }
    return "(accepted)";
}

const std::string known_capabilities =
    "read_subject, read_roles, read_permissions, read_teams, read_claims, read_labels, "
    "append_labels, "
    "read_headers, write_headers, read_agent, read_objects, read_data, read_delegation, "
    "write_custom";

}  // namespace

TEST_CASE("a full pipeline configuration is read field by field") {
    auto config = parse(R"(plugin_dirs: [plugins, /opt/cmfpipe]
processors:
  - name: redact
    kind: pii_redactor
    description: redacts
    tags: [pii]
    hooks: [llm_input, llm_output]
    mode: permissive
    priority: -3
    on_error: disable
    capabilities: [append_labels, read_roles]
    config:
      label: "PII"
      limit: 10
      ratio: 0.5
      quoted: "10"
      off: false
      none: ~
      list: [a, 1]
    conditions:
      - roles: [user, tool]
        kinds: [tool_call]
      - tools: [send_email]
        environments: [prod]
  - name: second
    kind: tool_guard
    hooks: [llm_output]
)");
    CHECK(config.plugin_dirs == std::vector<fs::path>{"/base/plugins", "/opt/cmfpipe"});
    REQUIRE(config.processors.size() == 2);
    const auto& p = config.processors[0];
    CHECK(p.name == "redact");
    CHECK(p.kind == "pii_redactor");
    CHECK(p.hooks == std::vector<std::string>{"llm_input", "llm_output"});
    CHECK(p.mode == pl::Mode::permissive);
    CHECK(p.priority == -3);
    CHECK(p.on_error == pl::OnError::disable);
    CHECK(p.capabilities == std::vector<std::string>{"append_labels", "read_roles"});
    CHECK(
        p.config.dump() ==
        R"({"label":"PII","limit":10,"ratio":0.5,"quoted":"10","off":false,"none":null,"list":["a",1]})");
    REQUIRE(p.conditions.size() == 2);
    CHECK(p.conditions[0].roles == std::vector<std::string>{"user", "tool"});
    CHECK(p.conditions[0].kinds == std::vector<std::string>{"tool_call"});
    CHECK(p.conditions[1].tools == std::vector<std::string>{"send_email"});
    CHECK(p.conditions[1].environments == std::vector<std::string>{"prod"});
    CHECK(p.where.to_string() == "p.yaml:3:5");
    CHECK(p.kind_where.to_string() == "p.yaml:4:11");
    // Defaults.
    const auto& q = config.processors[1];
    CHECK(q.mode == pl::Mode::enforce);
    CHECK(q.priority == 50);
    CHECK(q.on_error == pl::OnError::fail);
    CHECK(q.capabilities.empty());
    CHECK(q.config == Json::object());
    CHECK(q.conditions.empty());
}

TEST_CASE("configuration mistakes are ConfigErrors at their line:col") {
    CHECK_THAT(refusal("processors:\n  - name: a\n    kind: k\n    hooks: [llm_input]\n"
                       "    capabilities: [read_labels, read_everything]\n"),
               Equals("p.yaml:5:33: unknown capability 'read_everything' (known: " +
                      known_capabilities + ")"));
    CHECK_THAT(
        refusal(
            "processors:\n  - name: a\n    kind: k\n    hooks: [llm_input]\n    mode: observe\n"),
        Equals(
            "p.yaml:5:11: unknown mode 'observe' (known: enforce, permissive, audit, disabled)"));
    CHECK_THAT(
        refusal(
            "processors:\n  - name: a\n    kind: k\n    hooks: [llm_input]\n    on_error: retry\n"),
        Equals("p.yaml:5:15: unknown on_error 'retry' (known: fail, ignore, disable)"));
    CHECK_THAT(
        refusal("processors:\n  - name: a\n    kind: k\n    hooks: [llm_input, tool_pre_invoke]\n"),
        Equals("p.yaml:4:24: unknown hook 'tool_pre_invoke' (known: llm_input, llm_output)"));
    CHECK_THAT(
        refusal(
            "processors:\n  - name: a\n    kind: k\n    hooks: [llm_input]\n    capabilites: []\n"),
        Equals("p.yaml:5:18: $.processors[0].capabilites: unknown field (expected one of: name, "
               "kind, hooks, mode, priority, on_error, capabilities, config, conditions, "
               "description, author, version, tags)"));
    CHECK_THAT(refusal("processors:\n  - {name: a, kind: k, hooks: [llm_input]}\n"
                       "  - {name: a, kind: j, hooks: [llm_input]}\n"),
               Equals("p.yaml:3:12: duplicate processor name 'a'"));
    CHECK_THAT(refusal("processors:\n  - name: a\n    hooks: [llm_input]\n"),
               Equals("p.yaml:2:5: processor 'a' needs a 'kind'"));
    CHECK_THAT(refusal("processors:\n  - name: a\n    kind: k\n"),
               Equals("p.yaml:2:5: processor 'a' needs 'hooks' (known: llm_input, llm_output)"));
    CHECK_THAT(
        refusal(
            "processors:\n  - name: a\n    kind: k\n    hooks: [llm_input]\n    priority: high\n"),
        Equals("p.yaml:5:15: $.processors[0].priority: expected an integer from -2147483648 to "
               "2147483647, got string"));
    CHECK_THAT(
        refusal(
            "processors:\n  - name: a\n    kind: k\n    hooks: [llm_input]\n    config: [1, 2]\n"),
        Equals("p.yaml:5:13: $.processors[0].config: expected an object or null, got array"));
    CHECK_THAT(
        refusal("processors:\n  - name: a\n    kind: k\n    hooks: [llm_input]\n"
                "    conditions:\n      - roles: [user, robot]\n"),
        Equals(
            "p.yaml:6:23: unknown role 'robot' (known: system, developer, user, assistant, tool)"));
    CHECK_THAT(refusal("processors:\n  - name: a\n    kind: k\n    hooks: [llm_input]\n"
                       "    conditions:\n      - server_ids: [s]\n"),
               Equals("p.yaml:6:21: $.processors[0].conditions[0].server_ids: unknown field "
                      "(expected one of: roles, kinds, tools, prompts, resources, environments)"));
    CHECK_THAT(refusal("plugins:\n  - name: a\n"),
               Equals("p.yaml:2:3: $.plugins: unknown field (expected one of: plugin_dirs, "
                      "processors)"));
    CHECK_THAT(refusal("processors:\n  - name: a\n    name: b\n"),
               Equals("p.yaml:3:5: duplicate key 'name'"));
    CHECK_THAT(refusal("processors: [a, b\n"),
               Equals("p.yaml:2:1: invalid YAML: end of sequence flow not found"));
    CHECK_THAT(refusal("- a\n"), Equals("p.yaml:1:1: $: expected an object, got array"));
    CHECK_THAT(refusal("processors:\n  - {name: a, kind: k, hooks: [llm_input], author: [x]}\n"),
               Equals("p.yaml:2:52: $.processors[0].author: expected a scalar, got array"));
    CHECK_THAT(refusal("processors:\n  - {name: 7, kind: k, hooks: [llm_input]}\n"),
               Equals("p.yaml:2:12: $.processors[0].name: expected a string or null, got integer"));
    CHECK(
        parse("processors:\n  - {name: a, kind: k, hooks: [llm_input], version: 1.0, tags: [1]}\n")
            .processors.size() == 1);
    CHECK_THAT(refusal(""),
               Equals("p.yaml:1:1: empty pipeline configuration (want a 'processors' list)"));
}

TEST_CASE(
    "building a pipeline refuses unknown kinds and configs their plugin rejects, at their place") {
    const auto reg = registry({adversarial_dir});
    try {
        pipeline("processors:\n  - name: a\n    kind: nope\n    hooks: [llm_input]\n", reg);
        FAIL("accepted");
    } catch (const cmfpipe::ConfigError& e) {
        CHECK_THAT(
            std::string(e.what()),
            Equals("test.yaml:3:11: processor 'a': unknown processor kind 'nope' (available: deny, "
                   "edit_custom, edit_subject, remove_label, throw, write_header)"));
    }
    // A disabled processor is not instantiated, so its kind need not be installed.
    CHECK_NOTHROW(pipeline(
        "processors:\n  - {name: a, kind: nope, hooks: [llm_input], mode: disabled}\n", reg));

    const auto bundled = registry({}, true);
    try {
        pipeline(
            "processors:\n  - name: p\n    kind: pii_redactor\n    hooks: [llm_input]\n"
            "    config: {kinds: [email, iban]}\n",
            bundled);
        FAIL("accepted");
    } catch (const cmfpipe::ConfigError& e) {
        CHECK_THAT(
            std::string(e.what()),
            Equals("test.yaml:2:5: processor 'p' (kind pii_redactor) refused its configuration: "
                   "pii_redactor: unknown kind \"iban\" (known: email, phone, card)"));
    }
}
