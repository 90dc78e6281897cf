// `cmfpipe serve` with the default pipeline in front of the local upstream (mock_upstream.py,
// model "bad-arguments": mock_bad_arguments.py), whose Chat Completions answer has tool calls
// with arguments that are not a JSON object: the llm_output processors are shown them, so the
// client gets the address in them redacted, the rest byte for byte; plain and streamed.
#include <catch2/catch.hpp>

#include "cmfpipe/json_parse.hpp"
#include "cmfpipe/wire/sse.hpp"
#include "support/http_client.hpp"
#include "support/mock_upstream.hpp"
#include "support/serve_process.hpp"

using namespace cmfpipe;
using namespace cmfpipe::testing;

namespace {

const Json request = {{"model", "bad-arguments"},
                      {"messages", {{{"role", "user"}, {"content", "Look her up."}}}}};

// The calls as mock_bad_arguments.py writes them, and as the client must get them.
const std::vector<std::pair<std::string, std::string>> upstream_calls = {
    {"call_0", R"({"email": "ada@example.com")"},
    {"call_1", "not json ada@example.com"},
    {"call_2", R"({"a": 1,)"}};
const std::vector<std::string> client_arguments = {R"({"email": "[REDACTED:EMAIL]")",
                                                   "not json [REDACTED:EMAIL]", R"({"a": 1,)"};

// One chunk of the mock's stream, as it writes it (compact, its key order).
std::string chunk(const Json& delta, const Json& finish = nullptr) {
    return "data: " +
           Json{{"id", "chatcmpl-bad"},
                {"object", "chat.completion.chunk"},
                {"created", 1700000000},
                {"model", "bad-arguments"},
                {"choices",
                 {{{"index", 0},
                   {"delta", delta},
                   {"logprobs", nullptr},
                   {"finish_reason", finish}}}}}
               .dump() +
           "\n\n";
}
Json call(int index, const std::string& id, const std::string& arguments) {
    return {{"tool_calls",
             {{{"index", index},
               {"id", id},
               {"type", "function"},
               {"function", {{"name", "lookup"}, {"arguments", arguments}}}}}}};
}

}  // namespace

TEST_CASE("serve: an answer's tool-call arguments that are not an object pass the processors") {
    MockUpstream upstream;
    ServeProcess server({"--upstream", "openai=" + upstream.url()});
    REQUIRE(server.running());
    HttpConnection client(server.port());

    SECTION("plain") {
        const HttpAnswer answer = client.request("POST", "/v1/chat/completions", request.dump());
        REQUIRE(answer.status == 200);
        INFO(answer.body);
        Json calls = Json::array();
        for (std::size_t i = 0; i < upstream_calls.size(); ++i) {
            calls.push_back(
                {{"id", upstream_calls[i].first},
                 {"type", "function"},
                 {"function", {{"name", "lookup"}, {"arguments", client_arguments[i]}}}});
        }
        const Json expected = {
            {"id", "chatcmpl-bad"},
            {"object", "chat.completion"},
            {"created", 1700000000},
            {"model", "bad-arguments"},
            {"choices",
             {{{"index", 0},
               {"message", {{"role", "assistant"}, {"content", nullptr}, {"tool_calls", calls}}},
               {"logprobs", nullptr},
               {"finish_reason", "tool_calls"}}}},
            {"usage", {{"prompt_tokens", 5}, {"completion_tokens", 30}, {"total_tokens", 35}}}};
        CHECK(answer.body == expected.dump());
    }
    SECTION("streamed") {
        Json streamed = request;
        streamed["stream"] = true;
        const HttpAnswer answer = client.request("POST", "/v1/chat/completions", streamed.dump());
        REQUIRE(answer.status == 200);
        INFO(answer.body);
        // Changed calls go out whole, one chunk each; the one with nothing to redact as it came,
        // in its fragments of 5 characters.
        std::string untouched = chunk(call(2, "call_2", ""));
        for (std::size_t at = 0; at < upstream_calls[2].second.size(); at += 5) {
            untouched += chunk(
                {{"tool_calls",
                  {{{"index", 2},
                    {"function", {{"arguments", upstream_calls[2].second.substr(at, 5)}}}}}}});
        }
        CHECK(answer.body == chunk({{"role", "assistant"}, {"content", nullptr}}) +
                                 chunk(call(0, "call_0", client_arguments[0])) +
                                 chunk(call(1, "call_1", client_arguments[1])) + untouched +
                                 chunk(Json::object(), "tool_calls") + "data: [DONE]\n\n");
    }
    CHECK(upstream.received().size() == 1);
}
