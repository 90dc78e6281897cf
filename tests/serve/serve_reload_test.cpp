// `cmfpipe serve` reloading what it serves (a real process): SIGHUP and POST /admin/reload load
// the pipeline config and the prompts folder anew, all or nothing. A configuration that does not
// load is refused, logged, and the old one goes on serving; /admin/reload is off without
// --admin-token, wants the token, and answers this machine only.
#include <signal.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <thread>

#include "cmfpipe/json_parse.hpp"
#include "support/http_client.hpp"
#include "support/scratch.hpp"
#include "support/serve_process.hpp"

using namespace cmfpipe;
using namespace cmfpipe::testing;

namespace {

const std::filesystem::path examples = std::filesystem::path(CMFPIPE_SOURCE_DIR) / "examples";

const std::string redacting = R"(processors:
  - {name: redact_pii, kind: pii_redactor, hooks: [llm_input, llm_output], mode: enforce,
     capabilities: [append_labels]}
)";
const std::string passing = "processors: []\n";
const std::string broken = "processors:\n  - {name: x, kind: no_such_kind, hooks: [llm_input]}\n";

const std::string mail = R"({"messages": [{"role": "user", "content": [{"content_type": "text",
    "text": "Mail ada@example.com"}]}]})";

// The first message's text after the llm_input processors.
std::string processed_text(HttpConnection& client) {
    const HttpAnswer answer = client.request("POST", "/v1/process", mail);
    REQUIRE(answer.status == 200);
    return json_of(answer)["messages"][0]["content"][0]["text"].get<std::string>();
}

// Waits until the server's log holds `text` (a reload runs on the pool, after the signal).
bool logged(const ServeProcess& server, const std::string& text) {
    for (int i = 0; i < 200; ++i) {
        if (server.stderr_text().find(text) != std::string::npos) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    return false;
}

}  // namespace

TEST_CASE(
    "reload: SIGHUP loads the pipeline anew - a broken config is refused and the old one "
    "serves on") {
    Scratch s;
    const std::string config = s.write("pipeline.yaml", redacting);
    ServeProcess served({"--config", config, "--drain-delay", "0"});
    REQUIRE(served.running());
    HttpConnection client(served.port());
    CHECK(processed_text(client) == "Mail [REDACTED:EMAIL]");

    s.write("pipeline.yaml", passing);
    served.signal(SIGHUP);
    REQUIRE(logged(served, "cmfpipe serve: reloaded, serving generation 2"));
    CHECK(processed_text(client) == "Mail ada@example.com");

    s.write("pipeline.yaml", broken);
    served.signal(SIGHUP);
    REQUIRE(logged(served, "cmfpipe serve: reload refused, still serving generation 2: "));
    CHECK_THAT(served.stderr_text(), Catch::Contains("no_such_kind"));
    CHECK(processed_text(client) == "Mail ada@example.com");
    CHECK(client.request("GET", "/health").status == 200);

    s.write("pipeline.yaml", redacting);
    served.signal(SIGHUP);
    REQUIRE(logged(served, "cmfpipe serve: reloaded, serving generation 3"));
    CHECK(processed_text(client) == "Mail [REDACTED:EMAIL]");
}

TEST_CASE(
    "reload: the prompts folder is loaded anew whole - a prompt that does not load keeps "
    "the old folder") {
    Scratch s;
    std::filesystem::create_directories(s.dir / "prompts");
    std::filesystem::copy_file(examples / "prompty" / "chat.prompty",
                               s.dir / "prompts/chat.prompty");
    ServeProcess server({"--prompts", (s.dir / "prompts").string(), "--no-pipeline",
                         "--admin-token", "s3cret", "--drain-delay", "0"});
    REQUIRE(server.running());
    HttpConnection client(server.port());
    const std::pair<std::string, std::string> bearer{"authorization", "Bearer s3cret"};
    CHECK(client.request("POST", "/v1/prompts/chat", R"({"question": "hi"})").status == 200);

    // A second prompt that does not parse: the reload is refused with where it fails.
    s.write("prompts/bad.prompty", "---\nname: [unclosed\n---\nuser:\nhi\n");
    HttpAnswer refused = client.request("POST", "/admin/reload", "", {bearer});
    CHECK(refused.status == 422);
    const Json error = json_of(refused)["error"];
    CHECK(error["type"] == "ConfigError");
    CHECK(error["code"] == "reload_refused");
    CHECK_THAT(error["message"].get<std::string>(),
               Catch::Contains("bad.prompty:3:1: invalid frontmatter YAML"));
    CHECK_THAT(error["message"].get<std::string>(),
               Catch::EndsWith("(still serving generation 1)"));
    CHECK(client.request("POST", "/v1/prompts/chat", R"({"question": "hi"})").status == 200);

    std::filesystem::remove(s.dir / "prompts/bad.prompty");
    std::filesystem::copy_file(s.dir / "prompts/chat.prompty", s.dir / "prompts/again.prompty");
    HttpAnswer reloaded = client.request("POST", "/admin/reload", "", {bearer});
    CHECK(reloaded.status == 200);
    CHECK(json_of(reloaded) == Json{{"status", "reloaded"}, {"generation", 2}});
    CHECK(client.request("POST", "/v1/prompts/again", R"({"question": "hi"})").status == 200);
    CHECK(logged(server, "cmfpipe serve: reloaded, serving generation 2"));
}

TEST_CASE("reload: /admin/reload is off without --admin-token - wants the token and POST") {
    ServeProcess plain({"--no-pipeline", "--drain-delay", "0"});
    REQUIRE(plain.running());
    HttpConnection to_plain(plain.port());
    const HttpAnswer off = to_plain.request("POST", "/admin/reload", "");
    CHECK(off.status == 404);
    CHECK(json_of(off)["error"]["message"] ==
          "no route /admin/reload (serve --admin-token turns it on)");

    ServeProcess server({"--no-pipeline", "--admin-token", "s3cret", "--drain-delay", "0"});
    REQUIRE(server.running());
    HttpConnection client(server.port());
    const HttpAnswer no_token = client.request("POST", "/admin/reload", "");
    CHECK(no_token.status == 401);
    CHECK(json_of(no_token)["error"]["code"] == "admin_token");
    const HttpAnswer wrong =
        client.request("POST", "/admin/reload", "", {{"authorization", "Bearer s3cre"}});
    CHECK(wrong.status == 401);
    CHECK(client.request("GET", "/admin/reload", "", {{"authorization", "Bearer s3cret"}}).status ==
          405);
    const HttpAnswer done =
        client.request("POST", "/admin/reload", "", {{"authorization", "Bearer s3cret"}});
    CHECK(done.status == 200);
    CHECK(json_of(done) == Json{{"status", "reloaded"}, {"generation", 2}});

    ServeProcess usage({"--no-pipeline", "--admin-remote"});
    CHECK_FALSE(usage.running());
    CHECK_THAT(usage.stderr_text(), Catch::Contains("--admin-remote wants --admin-token"));
}
