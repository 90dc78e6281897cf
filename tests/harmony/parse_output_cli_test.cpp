// `cmfpipe parse-output --from KIND [FILE|-]` run as a real process.
#include <catch2/catch.hpp>

#include "cmfpipe/json.hpp"
#include "support/process.hpp"
#include "support/scratch.hpp"

using cmfpipe::Json;
using cmfpipe::testing::run_cli;
using cmfpipe::testing::run_shell;
using cmfpipe::testing::Scratch;
using cmfpipe::testing::shell_quote;

TEST_CASE("parse-output --from harmony prints the CMF messages of a completion",
          "[cli][parse-output]") {
    Scratch scratch;
    auto file =
        scratch.write("ok.txt",
                      "<|channel|>analysis<|message|>Hmm.<|end|><|start|>assistant<|channel|>"
                      "final<|message|>Hi!<|return|>");
    auto r = run_cli("parse-output", "--from", "harmony", file);
    REQUIRE(r.exit_code == 0);
    Json out = Json::parse(r.out);
    REQUIRE(out.size() == 2);
    CHECK(out[0]["role"] == "assistant");
    CHECK(out[0]["channel"] == "analysis");
    CHECK(out[0]["content"] == Json::parse(R"([{"content_type": "thinking", "text": "Hmm."}])"));
    CHECK(out[1]["channel"] == "final");
    CHECK(out[1]["content"] == Json::parse(R"([{"content_type": "text", "text": "Hi!"}])"));
    CHECK(out[1]["extensions"]["completion"]["stop_reason"] == "return");
    CHECK(out[1]["extensions"]["completion"]["raw_format"] == "harmony");
}

TEST_CASE("parse-output reads standard input and passes --option to the adapter",
          "[cli][parse-output]") {
    auto r = run_shell(
        "printf '%s' 'Sure.<tool_call>{\"name\": \"f\", \"arguments\": {\"x\": 1}}</tool_call>' "
        "| " +
        shell_quote(CMFPIPE_CLI) + " parse-output --from chatml --option complete=true -");
    REQUIRE(r.exit_code == 0);
    Json out = Json::parse(r.out);
    REQUIRE(out.size() == 1);
    CHECK(out[0]["content"] == Json::parse(R"([{"content_type": "text", "text": "Sure."},
        {"content_type": "tool_call", "content": {"tool_call_id": "call_1", "name": "f", "arguments": {"x": 1}, "namespace": null}}])"));
    CHECK(out[0]["extensions"]["completion"]["stop_reason"].is_null());
    CHECK_FALSE(out[0]["extensions"].contains("custom"));
}

TEST_CASE("parse-output errors: unknown kind, malformed completion with file:line:col",
          "[cli][parse-output]") {
    auto unknown = run_cli("parse-output", "--from", "no_such_kind", "-");
    CHECK(unknown.exit_code == 1);
    CHECK(unknown.err.rfind("cmfpipe: InvokerError: ", 0) == 0);
    CHECK(unknown.err.find("no_such_kind") != std::string::npos);

    Scratch scratch;
    auto file = scratch.write("bad.txt", "<|channel|>final<|message|>ok<|end|>\nstray");
    auto bad = run_cli("parse-output", "--from", "harmony", file);
    CHECK(bad.exit_code == 1);
    CHECK(bad.err == "cmfpipe: ValueError: " + file +
                         ":2:1: harmony: expected <|start|> to begin a message, found 'stray'\n");

    auto usage = run_cli("parse-output", file);
    CHECK(usage.exit_code == 2);
}
