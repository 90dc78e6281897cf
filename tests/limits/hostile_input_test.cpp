// Issue 10's hostile inputs, each through the real CLI: the process must end with a clear error
// (exact text), in under 2 s and under 256 MB of resident memory (getrusage of the cmfpipe
// process), never with a crash.
#include <catch2/catch.hpp>

#include <string>

#include "support/hostile.hpp"
#include "support/nested_json.hpp"
#include "support/process.hpp"
#include "support/scratch.hpp"

using cmfpipe::testing::check_hostile_bounds;
using cmfpipe::testing::kHostileMaxRssKb;
using cmfpipe::testing::kSanitized;
using cmfpipe::testing::MeasuredResult;
using cmfpipe::testing::nested_arrays;
using cmfpipe::testing::run_cli_measured;
using cmfpipe::testing::Scratch;

namespace {

// Ends quickly and small, with exit 1 and exactly `error` on stderr, nothing on stdout.
void check_refused(const MeasuredResult& r, const std::string& error) {
    INFO("stderr: " << r.err);
    CHECK(r.signal == 0);
    CHECK_FALSE(r.killed);
    CHECK(r.exit_code == 1);
    CHECK(r.out.empty());
    CHECK(r.err == error);
    check_hostile_bounds(r);
}

const std::string kPrompty =
    "---\nname: t\nmodel:\n  id: m\ninputs:\n  - name: q\n    kind: object\n---\nuser:\n{{q}}\n";

// A messages document whose one message carries `payload` in the named place: the tool call's
// arguments (7 levels above it) or the message's extensions.custom (6 levels above it).
std::string messages_with(const std::string& where, const std::string& payload) {
    if (where == "arguments") {
        return R"({"messages": [{"role": "assistant", "content": [{"content_type": "tool_call", )"
               R"("content": {"tool_call_id": "c1", "name": "f", "arguments": {"a": )" +
               payload + "}}}]}]}";
    }
    return R"({"messages": [{"role": "user", "content": [{"content_type": "text", "text": "hi"}], )"
           R"("extensions": {"custom": {"x": )" +
           payload + "}}}]}";
}

// `depth` arrays around one string: ["..."] nested.
std::string deep_around(std::size_t depth, const std::string& json_value) {
    return std::string(depth, '[') + json_value + std::string(depth, ']');
}

// Ten levels of ten aliases each: 10^10 values when expanded.
std::string billion_laughs(const std::string& indent) {
    std::string text = indent + "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
    for (char level = 'b'; level <= 'j'; ++level) {
        std::string prev(1, static_cast<char>(level - 1));
        text += indent + std::string(1, level) + ": &" + level + " [";
        for (int i = 0; i < 10; ++i) text += (i ? ", *" : "*") + prev;
        text += "]\n";
    }
    return text;
}

}  // namespace

TEST_CASE("hostile: run inputs nested 100000 deep are LimitExceeded, not a stack overflow") {
    Scratch s;
    auto prompty = s.write("t.prompty", kPrompty);
    auto inputs = s.write("in.json", "{\"q\": " + nested_arrays(100'000) + "}");
    check_refused(run_cli_measured({"run", prompty, "--inputs", inputs}),
                  "cmfpipe: LimitExceeded: " + inputs +
                      ":1:518: JSON nested deeper than 512 levels (max_depth)\n");
}

TEST_CASE("hostile: run inputs from stdin nested 100000 deep are LimitExceeded") {
    Scratch s;
    auto prompty = s.write("t.prompty", kPrompty);
    auto inputs = s.write("in.json", "{\"q\": " + nested_arrays(100'000) + "}");
    check_refused(run_cli_measured({"run", prompty, "--inputs", "-"}, inputs),
                  "cmfpipe: LimitExceeded: <stdin>:1:518: JSON nested deeper than 512 levels "
                  "(max_depth)\n");
}

TEST_CASE("hostile: process with tool-call arguments nested 100000 deep is LimitExceeded") {
    Scratch s;
    auto file = s.write("m.json", messages_with("arguments", nested_arrays(100'000)));
    check_refused(run_cli_measured({"process", file}),
                  "cmfpipe: LimitExceeded: " + file +
                      ":1:650: JSON nested deeper than 512 levels (max_depth)\n");
}

TEST_CASE("hostile: process and views with extensions.custom nested 100000 deep are refused") {
    Scratch s;
    auto file = s.write("m.json", messages_with("custom", nested_arrays(100'000)));
    const std::string error = "cmfpipe: LimitExceeded: " + file +
                              ":1:623: JSON nested deeper than 512 levels (max_depth)\n";
    check_refused(run_cli_measured({"process", file}), error);
    check_refused(run_cli_measured({"views", file}), error);
}

TEST_CASE("hostile: messages at exactly max_depth are processed, redaction reaching the bottom") {
    Scratch s;
    // 7 levels of document above the payload + 505 arrays = 512.
    auto file =
        s.write("m.json", messages_with("arguments", deep_around(505, "\"x@example.com\"")));
    MeasuredResult r = run_cli_measured({"process", file});
    INFO("stderr: " << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("x@example.com") == std::string::npos);
    CHECK(r.out.find("\"[REDACTED:EMAIL]\"") != std::string::npos);
    if (!kSanitized) CHECK(r.max_rss_kb < kHostileMaxRssKb);
    MeasuredResult views = run_cli_measured({"views", file});
    CHECK(views.exit_code == 0);
    CHECK(views.out.rfind("[\n  {\n    \"input\": {", 0) == 0);
}

TEST_CASE("hostile: run inputs at exactly max_depth render without a crash") {
    Scratch s;
    auto prompty = s.write("t.prompty", kPrompty);
    auto inputs = s.write("in.json", "{\"q\": " + nested_arrays(511) + "}");
    MeasuredResult r = run_cli_measured({"run", prompty, "--inputs", inputs, "--no-pipeline"});
    INFO("stderr: " << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find(nested_arrays(511)) != std::string::npos);
    if (!kSanitized) CHECK(r.max_rss_kb < kHostileMaxRssKb);
}

TEST_CASE("hostile: a render option nested 60000 deep is LimitExceeded naming the option") {
    Scratch s;
    auto tpl = s.write("t.j2", "hi");
    check_refused(
        run_cli_measured({"render", "--format", "jinja2", "--template", tpl, "--option",
                          "limits=" + nested_arrays(60'000)}),
        "cmfpipe: LimitExceeded: --option limits:1:513: JSON nested deeper than 512 levels "
        "(max_depth)\n");
}

TEST_CASE("hostile: a YAML alias bomb in .prompty frontmatter is LimitExceeded") {
    Scratch s;
    auto prompty = s.write("bomb.prompty", "---\nname: t\nmetadata:\n" + billion_laughs("  ") +
                                               "model:\n  id: m\n---\nuser:\nhi\n");
    check_refused(run_cli_measured({"run", prompty}),
                  "cmfpipe: LimitExceeded: " + prompty +
                      ":4:45: YAML expands to more than 100000 nodes (max_yaml_nodes; aliases "
                      "count each time they are used)\n");
}

TEST_CASE("hostile: a YAML alias bomb in a processor's config is LimitExceeded") {
    Scratch s;
    auto config = s.write("p.yaml",
                          "processors:\n  - name: p\n    kind: pii_redactor\n    hooks: "
                          "[llm_input]\n    config:\n" +
                              billion_laughs("      "));
    auto messages = s.write("m.json", messages_with("custom", "1"));
    const std::string error = "cmfpipe: LimitExceeded: " + config +
                              ":6:24: YAML expands to more than 100000 nodes (max_yaml_nodes; "
                              "aliases count each time they are used)\n";
    check_refused(run_cli_measured({"validate-config", config}), error);
    check_refused(run_cli_measured({"process", "--config", config, messages}), error);
}

TEST_CASE("hostile: invalid UTF-8 in a .prompty body is a ValueError at file:line:col") {
    Scratch s;
    auto prompty = s.write("bad.prompty", "---\nname: t\nmodel:\n  id: m\n---\nuser:\nab\xFF\n");
    const std::string error = "cmfpipe: ValueError: " + prompty + ":7:3: invalid UTF-8 byte 0xFF\n";
    check_refused(run_cli_measured({"run", prompty}), error);
    check_refused(run_cli_measured({"run", prompty, "--to", "chatml"}), error);
}

TEST_CASE("hostile: --limit max_input_bytes admits a file of that size and refuses one more") {
    Scratch s;
    const std::string prompty = "---\nname: t\nmodel:\n  id: m\n---\nuser:\nhi\n";
    auto file = s.write("t.prompty", prompty);
    const std::string size = std::to_string(prompty.size());
    MeasuredResult ok =
        run_cli_measured({"run", file, "--no-pipeline", "--limit", "max_input_bytes=" + size});
    CHECK(ok.exit_code == 0);
    check_refused(run_cli_measured({"run", file, "--no-pipeline", "--limit",
                                    "max_input_bytes=" + std::to_string(prompty.size() - 1)}),
                  "cmfpipe: LimitExceeded: " + file + ": input larger than " +
                      std::to_string(prompty.size() - 1) + " bytes (max_input_bytes)\n");
}

TEST_CASE("hostile: endless standard input stops at max_input_bytes") {
    // /dev/zero never ends: the reader must stop at the bound instead of filling memory.
    MeasuredResult r = run_cli_measured(
        {"parse-output", "--from", "chatml", "--limit", "max_input_bytes=1000000", "-"},
        "/dev/zero");
    check_refused(r,
                  "cmfpipe: LimitExceeded: <stdin>: input larger than 1000000 bytes "
                  "(max_input_bytes)\n");
}

TEST_CASE("hostile: a bad --limit is a usage error") {
    MeasuredResult r = run_cli_measured({"version", "--limit", "max_depth=lots"});
    CHECK(r.exit_code == 2);
    CHECK(r.err.rfind("cmfpipe version: --limit wants KEY=N (a whole number), got "
                      "'max_depth=lots'\n",
                      0) == 0);
    MeasuredResult unknown = run_cli_measured({"version", "--limit", "max_dept=3"});
    CHECK(unknown.exit_code == 1);
    CHECK(unknown.err ==
          "cmfpipe: ValueError: limits: $.max_dept: unknown field (expected one of: max_depth, "
          "max_input_bytes, max_yaml_nodes)\n");
}
