// cmfpipe process / views / validate-config, run for real.
#include <catch2/catch.hpp>

#include "cmfpipe/core/files.hpp"
#include "fixture.hpp"
#include "support/process.hpp"
#include "support/scratch.hpp"

using namespace pipeline_test;
using cmfpipe::testing::run_cli;
using cmfpipe::testing::Scratch;

namespace {

const Json messages = {
    {"messages",
     {{{"role", "user"},
       {"content", {{{"content_type", "text"}, {"text", "mail me at joe@ex.com"}}}}},
      {{"role", "assistant"},
       {"content",
        {{{"content_type", "tool_call"},
          {"content",
           {{"tool_call_id", "t1"},
            {"name", "get_user"},
            {"arguments", {{"id", 7}}},
            {"namespace", "hr"}}}}}}}}},
    {"extensions",
     {{"request", {{"environment", "prod"}}},
      {"security",
       {{"labels", {"INTERNAL"}},
        {"subject", {{"id", "alice"}, {"type", "user"}, {"roles", {"dev"}}}}}}}}};

}  // namespace

TEST_CASE("cmfpipe process with no --config runs config/default.yaml") {
    Scratch s;
    auto file = s.write("m.json", messages.dump());
    auto result = run_cli("process", file);
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    auto out = cmfpipe::parse_json(result.out, "stdout");
    CHECK(out["messages"][0]["content"][0]["text"] == "mail me at [REDACTED:EMAIL]");
    CHECK(out["messages"][0]["extensions"]["security"]["labels"] == Json({"INTERNAL", "PII"}));
    CHECK(out["messages"][1]["extensions"]["security"]["labels"] == Json({"INTERNAL"}));
    CHECK(out["decisions"] == Json::array({{{"processor", "redact_pii"},
                                            {"kind", "pii_redactor"},
                                            {"hook", "llm_input"},
                                            {"message", 0},
                                            {"mode", "enforce"},
                                            {"outcome", "modified"},
                                            {"effect", "applied"}}}));
}

TEST_CASE("cmfpipe process with no --config redacts thinking and tool results as well") {
    const Json thinking = {{"content_type", "thinking"}, {"text", "ada@example.com asked"}};
    const Json tool_result = {{"content_type", "tool_result"},
                              {"content",
                               {{"tool_call_id", "t1"},
                                {"tool_name", "get_user"},
                                {"content", {{"phone", "555-123-4567"}, {"id", 7}}},
                                {"is_error", false}}}};
    const Json document = {{"messages",
                            {{{"role", "assistant"}, {"content", {thinking}}},
                             {{"role", "tool"}, {"content", {tool_result}}}}}};
    Scratch s;
    auto result = run_cli("process", s.write("m.json", document.dump()));
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    auto out = cmfpipe::parse_json(result.out, "stdout");
    CHECK(out["messages"][0]["content"] ==
          Json::array({{{"content_type", "thinking"}, {"text", "[REDACTED:EMAIL] asked"}}}));
    CHECK(out["messages"][1]["content"][0]["content"]["content"] ==
          Json({{"phone", "[REDACTED:PHONE]"}, {"id", 7}}));
    CHECK(out["messages"][0]["extensions"]["security"]["labels"] == Json({"PII"}));
    CHECK(out["messages"][1]["extensions"]["security"]["labels"] == Json({"PII"}));
    CHECK(out["decisions"].size() == 2);
}

TEST_CASE("cmfpipe process prints every decision and exits 3 when the pipeline was stopped") {
    Scratch s;
    auto file = s.write("m.json", messages.dump());
    auto config =
        s.write("p.yaml", "plugin_dirs: [" + adversarial_dir.string() +
                              "]\n"
                              "processors:\n"
                              "  - {name: watch, kind: deny, hooks: [llm_output], mode: audit}\n"
                              "  - {name: block, kind: deny, hooks: [llm_output], priority: 60}\n");
    auto result = run_cli("process", "--config", config, "--hook", "llm_output", file);
    INFO(result.err);
    CHECK(result.exit_code == 3);
    auto out = cmfpipe::parse_json(result.out, "stdout");
    CHECK(out["messages"] == cmf::messages_to_json(pl::messages_from_document(messages, "m")));
    auto decision = [](const char* name, int message, const char* mode, const char* effect) {
        return Json{{"processor", name},    {"kind", "deny"},
                    {"hook", "llm_output"}, {"message", message},
                    {"mode", mode},         {"outcome", "denied"},
                    {"effect", effect},     {"reason", "denied by test"},
                    {"code", "test.deny"},  {"details", {{"message", message}}}};
    };
    CHECK(out["decisions"] == Json::array({decision("watch", 0, "audit", "recorded"),
                                           decision("watch", 1, "audit", "recorded"),
                                           decision("block", 0, "enforce", "stopped")}));
    CHECK(result.err.empty());
}

TEST_CASE("cmfpipe process reports bad input files with their place") {
    Scratch s;
    auto bad = s.write("bad.json", R"({"messages": [{"role": "robot", "content": []}]})");
    auto result = run_cli("process", bad);
    CHECK(result.exit_code == 1);
    CHECK_THAT(result.err, Catch::StartsWith("cmfpipe: ValueError: " + bad + ": messages[0].role"));
    auto usage = run_cli("process", "--hook", "tool_pre_invoke", bad);
    CHECK(usage.exit_code == 2);
    CHECK_THAT(
        usage.err,
        Catch::StartsWith(
            "cmfpipe process: unknown hook 'tool_pre_invoke' (known: llm_input, llm_output)\n"));
}

TEST_CASE("cmfpipe validate-config accepts a good file and names the line:col of a bad one") {
    Scratch s;
    auto good =
        s.write("good.yaml",
                "processors:\n"
                "  - {name: pii, kind: pii_redactor, hooks: [llm_input, llm_output], capabilities: "
                "[append_labels]}\n"
                "  - {name: guard, kind: tool_guard, hooks: [llm_output], config: {rules: []}}\n"
                "  - {name: off, kind: not_installed, hooks: [llm_output], mode: disabled}\n");
    auto ok = run_cli("validate-config", good);
    INFO(ok.err);
    CHECK(ok.exit_code == 0);
    CHECK(ok.out == good + ": ok, 3 processors\n  llm_input: pii\n  llm_output: pii, guard\n");

    auto bad = s.write("bad.yaml",
                       "processors:\n  - name: x\n    kind: pii_redactor\n    hooks: [llm_input]\n"
                       "    capabilities: [write_labels]\n");
    auto refused = run_cli("validate-config", bad);
    CHECK(refused.exit_code == 1);
    CHECK_THAT(refused.err, Catch::StartsWith(
                                "cmfpipe: ConfigError: " + bad +
                                ":5:20: unknown capability 'write_labels' (known: read_subject, "));
    CHECK(refused.out.empty());

    for (const char* config : {"default.yaml", "guarded_tools.yaml"}) {
        auto shipped =
            run_cli("validate-config", (fs::path(CMFPIPE_SOURCE_DIR) / "config" / config).string());
        INFO(config << ": " << shipped.err);
        CHECK(shipped.exit_code == 0);
    }
}

TEST_CASE("cmfpipe views shows exactly what the listed capabilities grant") {
    Scratch s;
    auto file = s.write("m.json", messages.dump());
    auto none = run_cli("views", file, "--capabilities", "");
    INFO(none.err);
    REQUIRE(none.exit_code == 0);
    auto views = cmfpipe::parse_json(none.out, "stdout");
    REQUIRE(views.size() == 2);
    CHECK(views[1]["input"]["uri"] == "tool://hr/get_user");
    CHECK(views ==
          cmfpipe::parse_json(run_cli("views", file).out, "stdout"));  // no option: none either
    const std::string none_text = views.dump();
    CHECK(none_text.find("alice") == std::string::npos);
    CHECK(none_text.find("INTERNAL") == std::string::npos);

    auto roles = cmfpipe::parse_json(
        run_cli("views", file, "--capabilities", "read_roles", "--hook", "llm_input").out, "v");
    const std::string roles_text = roles.dump();
    CHECK(roles_text.find("\"alice\"") != std::string::npos);
    CHECK(roles_text.find("\"dev\"") != std::string::npos);
    CHECK(roles_text.find("INTERNAL") == std::string::npos);
    CHECK(roles[0]["input"]["hook"] == "llm_input");

    auto unknown = run_cli("views", file, "--capabilities", "read_roles,read_all");
    CHECK(unknown.exit_code == 2);
    CHECK_THAT(
        unknown.err,
        Catch::StartsWith("cmfpipe views: unknown capability 'read_all' (known: read_subject, "));
}
