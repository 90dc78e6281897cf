// Every kind of misbehaving processor, under every mode, with its exact outcome. Each pipeline is
// the processor under test ("bad", priority 50) followed by "after" (edit_custom, priority 60),
// whose mark in custom.edited_by shows whether the pipeline went on.
#include <catch2/catch.hpp>

#include "fixture.hpp"

using namespace pipeline_test;

namespace {

std::string yaml(const std::string& kind, const std::string& mode, const std::string& capabilities,
                 const std::string& on_error = "fail") {
    return "processors:\n"
           "  - name: bad\n    kind: " +
           kind + "\n    hooks: [llm_input]\n    mode: " + mode + "\n    on_error: " + on_error +
           "\n    capabilities: [" + capabilities +
           "]\n"
           "  - name: after\n    kind: edit_custom\n    hooks: [llm_input]\n    priority: 60\n";
}

Json decision(const std::string& processor, const std::string& kind, int message,
              const std::string& mode, const std::string& outcome, const std::string& effect,
              Json extra = Json::object()) {
    Json d = {{"processor", processor}, {"kind", kind}, {"hook", "llm_input"},
              {"message", message},     {"mode", mode}, {"outcome", outcome},
              {"effect", effect}};
    for (auto& [key, value] : extra.items()) d[key] = value;
    return d;
}

// The two decisions of "after" (it always modifies custom) when the pipeline goes on.
void add_after(Json& expected) {
    expected.push_back(decision("after", "edit_custom", 0, "enforce", "modified", "applied"));
    expected.push_back(decision("after", "edit_custom", 1, "enforce", "modified", "applied"));
}

const cmfpipe::Registry& reg() {
    static const cmfpipe::Registry r = registry({adversarial_dir});
    return r;
}

// The input with only "after"'s mark added: what a pipeline that went on must return.
void require_only_after_applied(const std::vector<cmf::Message>& in,
                                const pl::PipelineResult& result) {
    REQUIRE(result.messages.size() == in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
        CHECK(*result.messages[i].custom() == Json({{"k", "v"}, {"edited_by", "after"}}));
        // Everything but custom is the very same (shared) slot as before.
        CHECK(result.messages[i].security() == in[i].security());
        CHECK(result.messages[i].http() == in[i].http());
        CHECK(result.messages[i].request() == in[i].request());
        CHECK(result.messages[i].content_ptr() == in[i].content_ptr());
    }
}

// Stopped at the first message: the conversation comes back exactly as it went in.
void require_untouched(const std::vector<cmf::Message>& in, const pl::PipelineResult& result) {
    REQUIRE(result.messages.size() == in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
        CHECK(result.messages[i].extensions_ptr() == in[i].extensions_ptr());
        CHECK(result.messages[i].content_ptr() == in[i].content_ptr());
    }
}

}  // namespace

TEST_CASE(
    "a processor that removes a label: violation of security.labels in every mode but disabled") {
    const auto in = conversation();
    const Json violations = {{"violations",
                              {{{"slot", "security.labels"},
                                {"tier", "monotonic"},
                                {"detail", "monotonic slot had elements removed: SECRET"}}}}};
    SECTION("enforce: stopped at the first message, nothing changed, 'after' never runs") {
        auto result =
            pipeline(yaml("remove_label", "enforce", "read_labels"), reg()).run("llm_input", in);
        CHECK(result.stopped);
        CHECK(decisions(result) == Json::array({decision("bad", "remove_label", 0, "enforce",
                                                         "violation", "stopped", violations)}));
        require_untouched(in, result);
    }
    for (const char* mode : {"permissive", "audit"}) {
        DYNAMIC_SECTION(
            mode << ": the copy is rejected, the violation recorded, the pipeline goes on") {
            auto result =
                pipeline(yaml("remove_label", mode, "read_labels"), reg()).run("llm_input", in);
            CHECK_FALSE(result.stopped);
            Json expected = {
                decision("bad", "remove_label", 0, mode, "violation", "rejected", violations),
                decision("bad", "remove_label", 1, mode, "violation", "rejected", violations)};
            add_after(expected);
            CHECK(decisions(result) == expected);
            require_only_after_applied(in, result);
            CHECK(result.messages[0].security()->labels == cmf::StringSet{"INTERNAL", "SECRET"});
        }
    }
    SECTION("disabled: never runs") {
        auto result =
            pipeline(yaml("remove_label", "disabled", "read_labels"), reg()).run("llm_input", in);
        Json expected = Json::array();
        add_after(expected);
        CHECK(decisions(result) == expected);
        require_only_after_applied(in, result);
    }
}

TEST_CASE(
    "a processor that edits the subject: violation of security.subject in every mode but "
    "disabled") {
    const auto in = conversation();
    const Json violations = {
        {"violations",
         {{{"slot", "security.subject"},
           {"tier", "immutable"},
           {"detail", "slot has no write capability and cannot be modified"}}}}};
    SECTION("enforce") {
        auto result =
            pipeline(yaml("edit_subject", "enforce", "read_roles"), reg()).run("llm_input", in);
        CHECK(result.stopped);
        CHECK(decisions(result) == Json::array({decision("bad", "edit_subject", 0, "enforce",
                                                         "violation", "stopped", violations)}));
        require_untouched(in, result);
    }
    for (const char* mode : {"permissive", "audit"}) {
        DYNAMIC_SECTION(mode) {
            auto result =
                pipeline(yaml("edit_subject", mode, "read_roles"), reg()).run("llm_input", in);
            CHECK_FALSE(result.stopped);
            Json expected = {
                decision("bad", "edit_subject", 0, mode, "violation", "rejected", violations),
                decision("bad", "edit_subject", 1, mode, "violation", "rejected", violations)};
            add_after(expected);
            CHECK(decisions(result) == expected);
            require_only_after_applied(in, result);
            CHECK(result.messages[1].security()->subject->roles == cmf::StringSet{"dev"});
        }
    }
    SECTION("disabled") {
        auto result =
            pipeline(yaml("edit_subject", "disabled", "read_roles"), reg()).run("llm_input", in);
        Json expected = Json::array();
        add_after(expected);
        CHECK(decisions(result) == expected);
    }
    SECTION("without read_subject it never sees a subject, so it has nothing to edit") {
        auto result = pipeline(yaml("edit_subject", "enforce", ""), reg()).run("llm_input", in);
        Json expected = Json::array();
        add_after(expected);
        CHECK(decisions(result) == expected);
    }
}

TEST_CASE("a processor that writes a header without write_headers: violation of http (guarded)") {
    const auto in = conversation();
    const Json violations = {{"violations",
                              {{{"slot", "http"},
                                {"tier", "guarded"},
                                {"detail", "plugin lacks 'write_headers' capability"}}}}};
    for (const char* caps : {"read_headers", ""}) {
        DYNAMIC_SECTION("enforce, capabilities [" << caps << "]") {
            auto result =
                pipeline(yaml("write_header", "enforce", caps), reg()).run("llm_input", in);
            CHECK(result.stopped);
            CHECK(decisions(result) == Json::array({decision("bad", "write_header", 0, "enforce",
                                                             "violation", "stopped", violations)}));
            require_untouched(in, result);
        }
    }
    for (const char* mode : {"permissive", "audit"}) {
        DYNAMIC_SECTION(mode) {
            auto result =
                pipeline(yaml("write_header", mode, "read_headers"), reg()).run("llm_input", in);
            Json expected = {
                decision("bad", "write_header", 0, mode, "violation", "rejected", violations),
                decision("bad", "write_header", 1, mode, "violation", "rejected", violations)};
            add_after(expected);
            CHECK(decisions(result) == expected);
            require_only_after_applied(in, result);
        }
    }
    SECTION("disabled") {
        auto result = pipeline(yaml("write_header", "disabled", ""), reg()).run("llm_input", in);
        Json expected = Json::array();
        add_after(expected);
        CHECK(decisions(result) == expected);
    }
    SECTION("with write_headers the same change is applied, and only http is new") {
        auto result =
            pipeline(yaml("write_header", "enforce", "write_headers"), reg()).run("llm_input", in);
        Json expected = {decision("bad", "write_header", 0, "enforce", "modified", "applied"),
                         decision("bad", "write_header", 1, "enforce", "modified", "applied")};
        add_after(expected);
        CHECK(decisions(result) == expected);
        for (const auto& m : result.messages) {
            CHECK(Json(*m.http()) ==
                  Json({{"headers", {{"X-Request-ID", "r1"}, {"X-Injected", "yes"}}}}));
            CHECK(m.security() == in[0].security());
        }
    }
}

TEST_CASE(
    "a processor that edits custom: accepted (mutable) in enforce and permissive, discarded in "
    "audit") {
    const auto in = conversation();
    for (const char* mode : {"enforce", "permissive"}) {
        DYNAMIC_SECTION(mode) {
            auto result = pipeline(yaml("edit_custom", mode, ""), reg()).run("llm_input", in);
            CHECK_FALSE(result.stopped);
            Json expected = {decision("bad", "edit_custom", 0, mode, "modified", "applied"),
                             decision("bad", "edit_custom", 1, mode, "modified", "applied")};
            add_after(expected);
            CHECK(decisions(result) == expected);
            // "after" saw bad's change and overwrote the same key.
            require_only_after_applied(in, result);
        }
    }
    SECTION("audit: recorded as modified, discarded") {
        auto result = pipeline(yaml("edit_custom", "audit", ""), reg()).run("llm_input", in);
        Json expected = {decision("bad", "edit_custom", 0, "audit", "modified", "discarded"),
                         decision("bad", "edit_custom", 1, "audit", "modified", "discarded")};
        add_after(expected);
        CHECK(decisions(result) == expected);
        require_only_after_applied(in, result);
    }
    SECTION("disabled") {
        auto result = pipeline(yaml("edit_custom", "disabled", ""), reg()).run("llm_input", in);
        Json expected = Json::array();
        add_after(expected);
        CHECK(decisions(result) == expected);
    }
}

TEST_CASE("a processor that throws: a PluginError handled by on_error, never a crash") {
    const auto in = conversation();
    const Json error = {
        {"error",
         {{"kind", "PluginError"}, {"message", "processor 'bad' (kind throw) threw: boom"}}}};
    SECTION("enforce, on_error fail: stopped") {
        auto result = pipeline(yaml("throw", "enforce", ""), reg()).run("llm_input", in);
        CHECK(result.stopped);
        CHECK(decisions(result) ==
              Json::array({decision("bad", "throw", 0, "enforce", "error", "stopped", error)}));
        require_untouched(in, result);
    }
    for (const char* mode : {"permissive", "audit"}) {
        DYNAMIC_SECTION(mode << ", on_error fail: recorded, the pipeline goes on") {
            auto result = pipeline(yaml("throw", mode, ""), reg()).run("llm_input", in);
            CHECK_FALSE(result.stopped);
            Json expected = {decision("bad", "throw", 0, mode, "error", "recorded", error),
                             decision("bad", "throw", 1, mode, "error", "recorded", error)};
            add_after(expected);
            CHECK(decisions(result) == expected);
            require_only_after_applied(in, result);
        }
    }
    SECTION("disabled") {
        auto result = pipeline(yaml("throw", "disabled", ""), reg()).run("llm_input", in);
        Json expected = Json::array();
        add_after(expected);
        CHECK(decisions(result) == expected);
    }
    SECTION("enforce, on_error ignore: ignored on every message") {
        auto result = pipeline(yaml("throw", "enforce", "", "ignore"), reg()).run("llm_input", in);
        Json expected = {decision("bad", "throw", 0, "enforce", "error", "ignored", error),
                         decision("bad", "throw", 1, "enforce", "error", "ignored", error)};
        add_after(expected);
        CHECK(decisions(result) == expected);
    }
    SECTION("enforce, on_error disable: disabled after the first error, for later runs too") {
        auto p = pipeline(yaml("throw", "enforce", "", "disable"), reg());
        CHECK(p.processors_for("llm_input") == std::vector<std::string>{"bad", "after"});
        auto result = p.run("llm_input", in);
        Json expected = {decision("bad", "throw", 0, "enforce", "error", "disabled", error)};
        add_after(expected);
        CHECK(decisions(result) == expected);
        CHECK(p.processors_for("llm_input") == std::vector<std::string>{"after"});
        Json again = Json::array();
        add_after(again);
        CHECK(decisions(p.run("llm_input", in)) == again);
    }
}

TEST_CASE("a processor that denies: stops in enforce, recorded in permissive and audit") {
    const auto in = conversation();
    auto denial = [](int message) {
        return Json{{"reason", "denied by test"},
                    {"code", "test.deny"},
                    {"details", {{"message", message}}}};
    };
    SECTION("enforce") {
        auto result = pipeline(yaml("deny", "enforce", ""), reg()).run("llm_input", in);
        CHECK(result.stopped);
        CHECK(decisions(result) ==
              Json::array({decision("bad", "deny", 0, "enforce", "denied", "stopped", denial(0))}));
        require_untouched(in, result);
    }
    for (const char* mode : {"permissive", "audit"}) {
        DYNAMIC_SECTION(mode) {
            auto result = pipeline(yaml("deny", mode, ""), reg()).run("llm_input", in);
            CHECK_FALSE(result.stopped);
            Json expected = {decision("bad", "deny", 0, mode, "denied", "recorded", denial(0)),
                             decision("bad", "deny", 1, mode, "denied", "recorded", denial(1))};
            add_after(expected);
            CHECK(decisions(result) == expected);
            require_only_after_applied(in, result);
        }
    }
    SECTION("disabled") {
        auto result = pipeline(yaml("deny", "disabled", ""), reg()).run("llm_input", in);
        Json expected = Json::array();
        add_after(expected);
        CHECK(decisions(result) == expected);
    }
}

TEST_CASE("processors run in priority order, ties in file order, only at their hooks") {
    const std::string config =
        "processors:\n"
        "  - {name: c, kind: edit_custom, hooks: [llm_input], priority: 5}\n"
        "  - {name: a, kind: edit_custom, hooks: [llm_input, llm_output]}\n"
        "  - {name: b, kind: edit_custom, hooks: [llm_output], priority: 50}\n"
        "  - {name: z, kind: edit_custom, hooks: [llm_input], priority: -1}\n";
    auto p = pipeline(config, reg());
    CHECK(p.processors_for("llm_input") == std::vector<std::string>{"z", "c", "a"});
    CHECK(p.processors_for("llm_output") == std::vector<std::string>{"a", "b"});
    auto result = p.run("llm_output", conversation());
    CHECK(*result.messages[0].custom() == Json({{"k", "v"}, {"edited_by", "b"}}));
    CHECK_THROWS_WITH(p.run("tool_pre_invoke", conversation()),
                      "unknown hook 'tool_pre_invoke' (known: llm_input, llm_output)");
}

TEST_CASE("conditions select the messages a processor runs on") {
    const std::string config =
        "processors:\n"
        "  - name: only_assistant\n"
        "    kind: edit_custom\n"
        "    hooks: [llm_input]\n"
        "    conditions:\n"
        "      - roles: [assistant]\n"
        "      - environments: [staging]\n";
    auto result = pipeline(config, reg()).run("llm_input", conversation());
    CHECK(*result.messages[0].custom() == Json({{"k", "v"}}));
    CHECK(*result.messages[1].custom() == Json({{"k", "v"}, {"edited_by", "only_assistant"}}));
    CHECK(decisions(result).size() == 1);
}
