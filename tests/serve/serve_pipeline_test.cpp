// `cmfpipe serve` and the processor pipeline: decisions in the answer, in the decision log (with
// the request id) and in /metrics; /v1/process and /v1/parse-output as the CLI commands.
#include <catch2/catch.hpp>
#include <filesystem>

#include "cmfpipe/json_parse.hpp"
#include "support/http_client.hpp"
#include "support/process.hpp"
#include "support/scratch.hpp"
#include "support/serve_process.hpp"

using namespace cmfpipe;
using namespace cmfpipe::testing;

namespace {

const std::filesystem::path examples = std::filesystem::path(CMFPIPE_SOURCE_DIR) / "examples";
const std::filesystem::path deny_plugins =
    std::filesystem::path(CMFPIPE_TEST_PLUGIN_DIR) / "pipeline";

const Json conversation = {
    {"messages",
     {{{"role", "user"},
       {"content", {{{"content_type", "text"}, {"text", "Mail ada@example.com"}}}}},
      {{"role", "assistant"}, {"content", {{{"content_type", "text"}, {"text", "Done."}}}}}}}};

}  // namespace

TEST_CASE("serve: a processor's stop is 403 with the decisions - logged with the request id") {
    Scratch s;
    std::filesystem::copy_file(examples / "prompty" / "chat.prompty", s.dir / "chat.prompty");
    const std::string config = s.write(
        "p.yaml", "plugin_dirs: [" + deny_plugins.string() +
                      "]\nprocessors:\n  - {name: block, kind: deny, hooks: [llm_input]}\n");
    ServeProcess server({"--prompts", s.dir.string(), "--config", config});
    REQUIRE(server.running());
    HttpConnection client(server.port());
    auto answer = client.request("POST", "/v1/prompts/chat", R"({"question": "hi"})",
                                 {{"x-cmfpipe-request-id", "stop-1"}});
    CHECK(answer.status == 403);
    const Json decision = {{"processor", "block"}, {"kind", "deny"},
                           {"hook", "llm_input"},  {"message", 0},
                           {"mode", "enforce"},    {"outcome", "denied"},
                           {"effect", "stopped"},  {"reason", "denied by test"},
                           {"code", "test.deny"},  {"details", {{"message", 0}}}};
    CHECK(json_of(answer) ==
          Json{{"decisions", {decision}},
               {"error",
                {{"message", "processor 'block' stopped the request: denied by test"},
                 {"type", "Stopped"},
                 {"code", "stopped"}}}});
    Json logged = {{"request_id", "stop-1"}, {"route", "/v1/prompts/{name}"}};
    logged.update(decision);
    const std::string err = server.stderr_text();
    CHECK_THAT(err, Catch::Contains(logged.dump()));

    auto metrics = client.request("GET", "/metrics");
    CHECK(metrics.status == 200);
    CHECK_THAT(metrics.body,
               Catch::Contains("cmfpipe_pipeline_decisions_total{processor=\"block\",outcome="
                               "\"denied\",effect=\"stopped\"} 1\n"));
    CHECK_THAT(metrics.body, Catch::Contains("cmfpipe_http_requests_total{route=\"/v1/prompts/"
                                             "{name}\",status=\"403\"} 1\n"));
}

TEST_CASE("serve: the default pipeline redacts a prompt's PII as cmfpipe run does") {
    Scratch s;
    std::filesystem::copy_file(examples / "prompty" / "chat.prompty", s.dir / "chat.prompty");
    const std::string inputs = R"({"question": "Write to ada@example.com"})";
    const std::string inputs_file = s.write("inputs.json", inputs);
    ServeProcess server({"--prompts", s.dir.string()});
    HttpConnection client(server.port());
    auto answer = client.request("POST", "/v1/prompts/chat?to=openai", inputs);
    auto cli = run_cli("run", (s.dir / "chat.prompty").string(), "--inputs", inputs_file, "--to",
                       "openai");
    REQUIRE(cli.exit_code == 0);
    CHECK(answer.status == 200);
    CHECK(answer.body == cli.out);
    CHECK_THAT(answer.body, !Catch::Contains("ada@example.com"));
}

TEST_CASE("serve: POST /v1/process answers as cmfpipe process - 403 when stopped") {
    Scratch s;
    const std::string file = s.write("m.json", conversation.dump());
    ServeProcess server({});
    HttpConnection client(server.port());
    for (const std::string hook : {"llm_input", "llm_output"}) {
        auto answer = client.request("POST", "/v1/process?hook=" + hook, conversation.dump());
        auto cli = run_cli("process", "--hook", hook, file);
        REQUIRE(cli.exit_code == 0);
        CHECK(answer.status == 200);
        CHECK(answer.body == cli.out);
    }
    auto bad_hook = client.request("POST", "/v1/process?hook=llm_sideways", conversation.dump());
    CHECK(bad_hook.status == 400);
    CHECK(json_of(bad_hook)["error"]["message"] ==
          "unknown hook 'llm_sideways' (known: llm_input, llm_output)");
    auto bad_messages = client.request("POST", "/v1/process",
                                       R"({"messages": [{"role": "robot", "content": []}]})");
    CHECK(bad_messages.status == 400);
    CHECK_THAT(json_of(bad_messages)["error"]["message"].get<std::string>(),
               Catch::StartsWith("request body"));

    const std::string config = s.write(
        "p.yaml", "plugin_dirs: [" + deny_plugins.string() +
                      "]\nprocessors:\n  - {name: block, kind: deny, hooks: [llm_output]}\n");
    ServeProcess stopping({"--config", config});
    HttpConnection to_stopping(stopping.port());
    auto stopped = to_stopping.request("POST", "/v1/process?hook=llm_output", conversation.dump());
    auto cli = run_cli("process", "--config", config, "--hook", "llm_output", file);
    REQUIRE(cli.exit_code == 3);
    CHECK(stopped.status == 403);
    Json expected = parse_json(cli.out, "stdout");
    expected["error"] = {{"message", "processor 'block' stopped the request: denied by test"},
                         {"type", "Stopped"},
                         {"code", "stopped"}};
    CHECK(json_of(stopped) == expected);
}

TEST_CASE("serve: POST /v1/parse-output answers as cmfpipe parse-output") {
    Scratch s;
    const std::string completion = R"({"id": "c1", "object": "chat.completion", "model": "m",
      "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant",
      "content": "Looking.", "tool_calls": [{"id": "call_1", "type": "function", "function":
      {"name": "find", "arguments": "{\"q\": \"nonce\"}"}}]}}]})";
    const std::string file = s.write("completion.json", completion);
    ServeProcess server({"--no-pipeline"});
    HttpConnection client(server.port());
    auto answer = client.request("POST", "/v1/parse-output?from=openai", completion);
    auto cli = run_cli("parse-output", "--from", "openai", file);
    REQUIRE(cli.exit_code == 0);
    CHECK(answer.status == 200);
    // The CLI names its file as the source; the server names the request body.
    Json expected = parse_json(cli.out, "stdout");
    Json got = json_of(answer);
    CHECK(got.size() == expected.size());
    CHECK(got[0]["content"] == expected[0]["content"]);

    auto chatml = client.request("POST", "/v1/parse-output?from=chatml&complete=true",
                                 "<|im_start|>assistant\nHi<|im_end|>");
    CHECK(chatml.status == 200);
    CHECK(json_of(chatml)[0]["content"][0]["text"] == "Hi");

    auto unknown = client.request("POST", "/v1/parse-output?from=telepathy", "x");
    CHECK(unknown.status == 400);
    CHECK(json_of(unknown)["error"]["type"] == "InvokerError");
    auto missing = client.request("POST", "/v1/parse-output", "x");
    CHECK(missing.status == 400);
}
