// `cmfpipe serve` and a streamed answer that an llm_output processor stops, over real sockets with
// the local upstream (tests/serve/mock_upstream.py): stopped before any of the answer went out,
// the client gets exactly the non-streamed stop (403 in the provider's error shape), nothing
// streamed; stopped later, the turn ends as the provider's own filter ends one (Chat Completions
// finish_reason "content_filter", Anthropic stop_reason "refusal"), or with the error event under
// --stream-stop error-event. The decision is in the log and the metrics either way.
#include <catch2/catch.hpp>

#include "cmfpipe/json_parse.hpp"
#include "support/http_client.hpp"
#include "support/mock_upstream.hpp"
#include "support/process.hpp"
#include "support/serve_process.hpp"

using namespace cmfpipe;
using namespace cmfpipe::testing;

namespace {

const std::filesystem::path source = CMFPIPE_SOURCE_DIR;
const std::string guarded_tools = (source / "config/guarded_tools.yaml").string();

// guard_tools' word on the mock's call of delete_user.
const std::string stop_reason =
    "processor 'guard_tools' stopped the answer: tool call tool://_/delete_user requires one of "
    "the roles: admin";

struct Route {
    const char* path;
    bool anthropic;
};
const Route routes[] = {{"/v1/chat/completions", false}, {"/v1/messages", true}};

Json request_for(const Route& route, const std::string& model, bool stream) {
    Json body = {{"model", model}, {"messages", {{{"role", "user"}, {"content", "hi"}}}}};
    if (route.anthropic) body["max_tokens"] = 64;
    if (stream) body["stream"] = true;
    return body;
}

std::vector<std::string> servers_args(const MockUpstream& upstream,
                                      std::vector<std::string> more = {}) {
    std::vector<std::string> args = {"--upstream", "openai=" + upstream.url(),
                                     "--upstream", "anthropic=" + upstream.url(),
                                     "--config",   guarded_tools};
    args.insert(args.end(), more.begin(), more.end());
    return args;
}

// How the mock's streams end when stopped after text went out (as mock_upstream.py shapes its
// events: model "tool", usage of message_start).
const std::string chat_filter_ending =
    R"(data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,)"
    R"("model":"MODEL","system_fingerprint":"fp_mock","choices":[{"index":0,"delta":{},)"
    R"("logprobs":null,"finish_reason":"content_filter"}]})"
    "\n\ndata: [DONE]\n\n";
const std::string refusal_ending =
    "event: message_delta\n"
    R"(data: {"type":"message_delta","delta":{"stop_reason":"refusal","stop_sequence":null},)"
    R"("usage":{"input_tokens":5,"output_tokens":1}})"
    "\n\nevent: message_stop\n"
    R"(data: {"type":"message_stop"})"
    "\n\n";

std::string with_model(std::string text, const std::string& model) {
    text.replace(text.find("MODEL"), 5, model);
    return text;
}

bool ends_with(const std::string& text, const std::string& end) {
    return text.size() >= end.size() &&
           text.compare(text.size() - end.size(), end.size(), end) == 0;
}

}  // namespace

TEST_CASE("stream stop: stopped before any of the answer went out, a 403 as when not streamed") {
    for (const char* mode : {"content-filter", "error-event"}) {
        INFO("--stream-stop " << mode);
        MockUpstream upstream;  // "tool-first": a call of delete_user before any text
        ServeProcess server(servers_args(upstream, {"--stream-stop", mode}));
        HttpConnection client(server.port());
        for (const Route& route : routes) {
            INFO(route.path);
            auto plain =
                client.request("POST", route.path, request_for(route, "tool-first", false).dump());
            auto streamed =
                client.request("POST", route.path, request_for(route, "tool-first", true).dump(),
                               {{"x-cmfpipe-request-id", "early-stop"}});
            CHECK(streamed.status == 403);
            CHECK(streamed.body == plain.body);  // exactly the non-streamed stop
            CHECK(streamed.header("content-type") == "application/json");
            CHECK(streamed.header("transfer-encoding") == "");
            CHECK(streamed.header("content-length") == std::to_string(streamed.body.size()));
            CHECK(streamed.header("x-request-id") == "req_upstream_1");  // the provider's fields
            CHECK(streamed.header("x-cmfpipe-request-id") == "early-stop");
            const Json body = parse_json(streamed.body, "answer");
            if (route.anthropic) {
                CHECK(body == Json{{"type", "error"},
                                   {"error", {{"type", "stopped"}, {"message", stop_reason}}}});
            } else {
                CHECK(body ==
                      Json{{"error",
                            {{"message", stop_reason}, {"type", "Stopped"}, {"code", "stopped"}}}});
            }
        }
        // The decision is logged with the request, and counted.
        CHECK_THAT(server.stderr_text(),
                   Catch::Contains("{\"request_id\":\"early-stop\",\"route\":\"/v1/messages\""));
        CHECK_THAT(client.request("GET", "/metrics").body,
                   Catch::Contains("cmfpipe_pipeline_decisions_total{processor=\"guard_tools\","
                                   "outcome=\"denied\",effect=\"stopped\"} 4\n"));
    }
}

TEST_CASE("stream stop: stopped after text went out, the turn ends as the provider's filter") {
    MockUpstream upstream;  // "tool": "Deleting." then a call of delete_user
    ServeProcess server(servers_args(upstream));
    HttpConnection client(server.port());

    auto chat = client.request("POST", routes[0].path, request_for(routes[0], "tool", true).dump(),
                               {{"x-cmfpipe-request-id", "late-stop"}});
    REQUIRE(chat.status == 200);
    INFO(chat.body);
    CHECK(chat.header("x-request-id") == "");  // the echo upstream sends no fields of its own
    CHECK(chat.body.find("delete_user") == std::string::npos);
    // The text ("Deleting." in three plain deltas, passed as the upstream spelled them), then the
    // filter's ending right after it: nothing else.
    auto upstream_text = [](const char* text) {
        return std::string(R"(data: {"id": "chatcmpl-1", "object": "chat.completion.chunk", )") +
               R"("created": 1700000000, "model": "tool", "system_fingerprint": "fp_mock", )" +
               R"("choices": [{"index": 0, "delta": {"content": ")" + text +
               R"("}, "logprobs": null, "finish_reason": null}]})" + "\n\n";
    };
    const std::string text_events =
        upstream_text("Dele") + upstream_text("ting") + upstream_text(".");
    CHECK(ends_with(chat.body, text_events + with_model(chat_filter_ending, "tool")));

    auto messages =
        client.request("POST", routes[1].path, request_for(routes[1], "tool", true).dump());
    REQUIRE(messages.status == 200);
    INFO(messages.body);
    CHECK(messages.body.find("delete_user") == std::string::npos);
    // The text block stopped before the call began: the refusal follows it.
    CHECK(ends_with(messages.body,
                    "event: content_block_stop\ndata: {\"type\": "
                    "\"content_block_stop\", \"index\": 0}\n\n" +
                        refusal_ending));
    CHECK_THAT(server.stderr_text(), Catch::Contains("{\"request_id\":\"late-stop\""));
    CHECK_THAT(client.request("GET", "/metrics").body,
               Catch::Contains("cmfpipe_pipeline_decisions_total{processor=\"guard_tools\","
                               "outcome=\"denied\",effect=\"stopped\"} 2\n"));
}

TEST_CASE("stream stop: a rewrite of sent text closes the open block, then the filter's ending") {
    MockUpstream upstream;  // "pii": "Mail ada@example.com please", four characters an event
    ServeProcess server(servers_args(upstream, {"--stream-holdback", "0"}));
    HttpConnection client(server.port());
    auto chat = client.request("POST", routes[0].path, request_for(routes[0], "pii", true).dump());
    REQUIRE(chat.status == 200);
    INFO(chat.body);
    CHECK(chat.body.find("ada@example.com") == std::string::npos);
    CHECK(ends_with(chat.body, with_model(chat_filter_ending, "pii")));

    auto messages =
        client.request("POST", routes[1].path, request_for(routes[1], "pii", true).dump());
    REQUIRE(messages.status == 200);
    INFO(messages.body);
    CHECK(messages.body.find("ada@example.com") == std::string::npos);
    CHECK(ends_with(messages.body,
                    "event: content_block_stop\ndata: "
                    "{\"type\":\"content_block_stop\",\"index\":0}\n\n" +
                        refusal_ending));
}

TEST_CASE("stream stop: --stream-stop error-event ends a stream stopped mid-way with the error") {
    MockUpstream upstream;
    ServeProcess server(servers_args(upstream, {"--stream-stop", "error-event"}));
    HttpConnection client(server.port());
    auto chat = client.request("POST", routes[0].path, request_for(routes[0], "tool", true).dump());
    REQUIRE(chat.status == 200);
    INFO(chat.body);
    CHECK(ends_with(
        chat.body,
        "data: " +
            Json{{"error", {{"message", stop_reason}, {"type", "Stopped"}, {"code", "stopped"}}}}
                .dump() +
            "\n\n"));

    auto messages =
        client.request("POST", routes[1].path, request_for(routes[1], "tool", true).dump());
    REQUIRE(messages.status == 200);
    INFO(messages.body);
    CHECK(ends_with(
        messages.body,
        "event: error\ndata: " +
            Json{{"type", "error"}, {"error", {{"type", "stopped"}, {"message", stop_reason}}}}
                .dump() +
            "\n\n"));
}

TEST_CASE("stream stop: --stream-stop takes content-filter or error-event, else exits 2") {
    const ProcessResult result =
        run_cli("serve", "--listen", "127.0.0.1:0", "--stream-stop", "close");
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::StartsWith("cmfpipe serve: --stream-stop wants content-filter "
                                             "or error-event, got 'close'\n"));
}

TEST_CASE(
    "stream stop: an upstream that breaks off before any of the answer is a 502, not a stream") {
    MockUpstream upstream;  // "cut-early": the stream's first event, then the connection closes
    ServeProcess server(servers_args(upstream));
    HttpConnection client(server.port());
    for (const Route& route : routes) {
        INFO(route.path);
        auto answer =
            client.request("POST", route.path, request_for(route, "cut-early", true).dump());
        CHECK(answer.status == 502);
        CHECK(answer.header("content-type") == "application/json");
        INFO(answer.body);
        const Json body = parse_json(answer.body, "answer");
        CHECK((route.anthropic ? body["error"]["type"] : body["error"]["code"]) ==
              "upstream_broken");
    }
}
