// `cmfpipe serve` spoken to over real sockets: every route answers what the matching CLI command
// prints, and every error has its status and a JSON body.
#include <catch2/catch.hpp>
#include <filesystem>
#include <thread>

#include "cmfpipe/json_parse.hpp"
#include "support/http_client.hpp"
#include "support/process.hpp"
#include "support/scratch.hpp"
#include "support/serve_process.hpp"

using namespace cmfpipe;
using namespace cmfpipe::testing;

namespace {

const std::filesystem::path examples = std::filesystem::path(CMFPIPE_SOURCE_DIR) / "examples";
const std::string chat_inputs = R"({"firstName": "Ada", "question": "What is a nonce?"})";

// A folder of prompts: the bundled chat example as chat.prompty.
struct PromptFolder {
    Scratch scratch;
    PromptFolder() {
        std::filesystem::copy_file(examples / "prompty" / "chat.prompty",
                                   scratch.dir / "chat.prompty");
    }
    std::string dir() const { return scratch.dir.string(); }
};

Json error_body(const std::string& message, const std::string& type, const std::string& code) {
    return {{"error", {{"message", message}, {"type", type}, {"code", code}}}};
}

}  // namespace

TEST_CASE("serve: GET /health is 200 {status: ok} and echoes the client's x-cmfpipe-request-id") {
    ServeProcess server({"--no-pipeline"});
    REQUIRE(server.running());
    HttpConnection client(server.port());
    auto answer = client.request("GET", "/health", {}, {{"x-cmfpipe-request-id", "req-42"}});
    CHECK(answer.status == 200);
    CHECK(json_of(answer) == Json{{"status", "ok"}});
    CHECK(answer.header("content-type") == "application/json");
    CHECK(answer.header("x-cmfpipe-request-id") == "req-42");
    // Keep-alive: a second request on the same connection, with an id made by the server.
    auto second = client.request("GET", "/health");
    CHECK(second.status == 200);
    CHECK(second.header("x-cmfpipe-request-id").size() == 33);  // 16 hex, '-', 16 hex
    CHECK(second.header("x-cmfpipe-request-id") != answer.header("x-cmfpipe-request-id"));
}

TEST_CASE("serve: GET /v1/plugins answers what cmfpipe plugins --json prints") {
    ServeProcess server({"--no-pipeline"});
    HttpConnection client(server.port());
    auto answer = client.request("GET", "/v1/plugins");
    auto cli = run_cli("plugins", "--json");
    REQUIRE(cli.exit_code == 0);
    CHECK(answer.status == 200);
    CHECK(answer.body == cli.out);
}

TEST_CASE("serve: POST /v1/prompts/NAME answers exactly what cmfpipe run prints - for every --to") {
    PromptFolder prompts;
    Scratch s;
    const std::string inputs_file = s.write("inputs.json", chat_inputs);
    ServeProcess server({"--prompts", prompts.dir()});
    REQUIRE(server.running());
    HttpConnection client(server.port());
    for (const std::string to : {"cmf", "openai", "anthropic", "chatml", "harmony"}) {
        INFO(to);
        auto answer = client.request("POST", "/v1/prompts/chat?to=" + to, chat_inputs);
        auto cli = run_cli("run", (examples / "prompty" / "chat.prompty").string(), "--inputs",
                           inputs_file, "--to", to);
        REQUIRE(cli.exit_code == 0);
        CHECK(answer.status == 200);
        CHECK(answer.body == cli.out);
        CHECK(
            answer.header("content-type") ==
            (to == "chatml" || to == "harmony" ? "text/plain; charset=utf-8" : "application/json"));
    }
    // No ?to: CMF, as `run` without --to.
    auto plain = client.request("POST", "/v1/prompts/chat", chat_inputs);
    CHECK(json_of(plain)[1]["content"][0]["text"] == "What is a nonce?");
}

TEST_CASE("serve: a prompt's errors: 400 naming the input - 404 for an unknown prompt or route") {
    PromptFolder prompts;
    ServeProcess server({"--prompts", prompts.dir(), "--no-pipeline"});
    HttpConnection client(server.port());

    auto missing = client.request("POST", "/v1/prompts/chat", R"({"firstName": "Ada"})");
    CHECK(missing.status == 400);
    auto body = json_of(missing);
    CHECK(body["error"]["type"] == "ValueError");
    CHECK(body["error"]["code"] == "invalid_request");
    CHECK_THAT(body["error"]["message"].get<std::string>(), Catch::Contains("question"));

    auto unknown = client.request("POST", "/v1/prompts/nope", "{}");
    CHECK(unknown.status == 404);
    CHECK(json_of(unknown) ==
          error_body("no prompt named 'nope' in " + prompts.dir(), "NotFound", "not_found"));

    auto traversal = client.request("POST", "/v1/prompts/..%2Fchat", "{}");
    CHECK(traversal.status == 404);
    CHECK(json_of(traversal) == error_body("no prompt named '../chat'", "NotFound", "not_found"));

    auto route = client.request("GET", "/v2/nothing");
    CHECK(route.status == 404);
    CHECK(json_of(route) == error_body("no route /v2/nothing", "NotFound", "unknown_route"));

    auto method = client.request("GET", "/v1/prompts/chat");
    CHECK(method.status == 405);
    CHECK(method.header("allow") == "POST");

    auto to = client.request("POST", "/v1/prompts/chat?to=telepathy", chat_inputs);
    CHECK(to.status == 400);
    CHECK(json_of(to)["error"]["type"] == "InvokerError");

    auto not_object = client.request("POST", "/v1/prompts/chat", "[1, 2]");
    CHECK(not_object.status == 400);
    CHECK(json_of(not_object) ==
          error_body("request body: the inputs must be a JSON object, got array", "ValueError",
                     "invalid_request"));
}

TEST_CASE("serve: malformed JSON is 400 with its line and column") {
    PromptFolder prompts;
    ServeProcess server({"--prompts", prompts.dir(), "--no-pipeline"});
    HttpConnection client(server.port());
    auto answer = client.request("POST", "/v1/prompts/chat", "{\n  \"question\": nope}");
    CHECK(answer.status == 400);
    auto body = json_of(answer);
    CHECK(body["error"]["type"] == "ValueError");
    CHECK_THAT(body["error"]["message"].get<std::string>(), Catch::StartsWith("request body:2:"));
    // The connection goes on serving.
    CHECK(client.request("GET", "/health").status == 200);
}

TEST_CASE(
    "serve: a changed prompt file is served changed - a new one is found - a removed one is gone") {
    PromptFolder prompts;
    ServeProcess server({"--prompts", prompts.dir(), "--no-pipeline"});
    HttpConnection client(server.port());
    const auto file = prompts.scratch.dir / "chat.prompty";
    auto before = json_of(client.request("POST", "/v1/prompts/chat", chat_inputs));
    CHECK(before[0]["content"][0]["text"] == "You are a concise assistant. You are helping Ada.");

    std::string text = slurp(file);
    text.replace(text.find("concise"), 7, "verbose");
    prompts.scratch.write("chat.prompty", text);
    auto after = json_of(client.request("POST", "/v1/prompts/chat", chat_inputs));
    CHECK(after[0]["content"][0]["text"] == "You are a verbose assistant. You are helping Ada.");

    prompts.scratch.write("second.prompty", text);
    CHECK(client.request("POST", "/v1/prompts/second", chat_inputs).status == 200);
    std::filesystem::remove(file);
    CHECK(client.request("POST", "/v1/prompts/chat", chat_inputs).status == 404);
}

TEST_CASE("serve: a prompt that no longer loads is a 500 naming its file and line") {
    PromptFolder prompts;
    ServeProcess server({"--prompts", prompts.dir(), "--no-pipeline"});
    HttpConnection client(server.port());
    prompts.scratch.write("chat.prompty", "---\nname: [unclosed\n---\nuser:\nhi\n");
    auto answer = client.request("POST", "/v1/prompts/chat", chat_inputs);
    CHECK(answer.status == 500);
    auto body = json_of(answer);
    CHECK(body["error"]["code"] == "prompt_unavailable");
    CHECK_THAT(body["error"]["message"].get<std::string>(),
               Catch::StartsWith((prompts.scratch.dir / "chat.prompty").string() + ":"));
}

TEST_CASE("serve: a broken prompt in the folder stops the start with its file and line") {
    Scratch s;
    s.write("bad.prompty", "---\nname: [unclosed\n---\nuser:\nhi\n");
    ServeProcess server({"--prompts", s.dir.string()});
    CHECK_FALSE(server.running());
    CHECK(server.exit_code() == 1);
    CHECK_THAT(server.stderr_text(),
               Catch::StartsWith("cmfpipe: ConfigError: " + (s.dir / "bad.prompty").string()) ||
                   Catch::StartsWith("cmfpipe: ValueError: " + (s.dir / "bad.prompty").string()));
}
