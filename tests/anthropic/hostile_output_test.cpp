// Model output an attacker or a cut connection could send the anthropic adapter: nesting past the
// depth bound (refused or flagged with its location, never a crash) and streams that stop early
// (parsed as far as they go, custom.incomplete set, a cut tool_use kept raw and flagged).
#include <catch2/catch.hpp>

#include "cmfpipe/cmf/json.hpp"
#include "support/hostile.hpp"
#include "support/nested_json.hpp"
#include "support/process.hpp"
#include "support/registry.hpp"
#include "support/scratch.hpp"

namespace {

using cmfpipe::Json;
using namespace cmfpipe::testing;

Json parse_output(const std::string& completion) {
    auto adapter = bundled_plugins().make_adapter("anthropic");
    return cmfpipe::cmf::messages_to_json(adapter->from_wire(completion, Json::object()));
}

std::string sse(const std::vector<Json>& events) {
    std::string out;
    for (const Json& e : events)
        out += "event: " + e["type"].get<std::string>() + "\ndata: " + e.dump() + "\n\n";
    return out;
}

const Json message_start = {
    {"type", "message_start"},
    {"message",
     {{"id", "m1"}, {"type", "message"}, {"role", "assistant"}, {"content", Json::array()}}}};

Json block_start(int index, Json block) {
    return {{"type", "content_block_start"}, {"index", index}, {"content_block", std::move(block)}};
}
Json delta(int index, Json d) {
    return {{"type", "content_block_delta"}, {"index", index}, {"delta", std::move(d)}};
}
Json block_stop(int index) {
    return {{"type", "content_block_stop"}, {"index", index}};
}

const Json tool_use_start = {
    {"type", "tool_use"}, {"id", "t1"}, {"name", "f"}, {"input", Json::object()}};

// What every message of these streams carries besides its content and custom.
Json expected(Json content, Json custom) {
    Json ext = {
        {"completion",
         {{"stop_reason", nullptr},
          {"tokens", nullptr},
          {"model", nullptr},
          {"raw_format", "anthropic"},
          {"created_at", nullptr},
          {"latency_ms", nullptr}}},
        {"provenance", {{"source", "anthropic"}, {"message_id", "m1"}, {"parent_id", nullptr}}}};
    if (!custom.is_null()) ext["custom"] = std::move(custom);
    return Json::array({{{"schema_version", "2.0"},
                         {"role", "assistant"},
                         {"content", std::move(content)},
                         {"channel", nullptr},
                         {"extensions", std::move(ext)}}});
}

}  // namespace

TEST_CASE("anthropic response body nested 100000 deep is LimitExceeded at its location in bounds") {
    Scratch scratch;
    auto input = scratch.write("deep.json", nested_arrays(100000));
    auto r = run_cli_measured({"parse-output", "--from", "anthropic", "-"}, input);
    CHECK(r.signal == 0);
    CHECK(r.exit_code == 1);
    CHECK(r.out.empty());
    CHECK(r.err ==
          "cmfpipe: LimitExceeded: <anthropic response>:1:513: JSON nested deeper than 512 levels "
          "(max_depth)\n");
    check_hostile_bounds(r);
}

TEST_CASE("anthropic tool_use.input 100000 deep in a response body is LimitExceeded in bounds") {
    // The input is part of the body's JSON: the body's bound refuses it where it went over.
    Scratch scratch;
    const std::string body =
        R"({"type":"message","role":"assistant","content":[{"type":"tool_use","id":"t1",)"
        R"("name":"f","input":)" +
        nested_arguments(100000) + "}]}";
    auto input = scratch.write("deep-input.json", body);
    auto r = run_cli_measured({"parse-output", "--from", "anthropic", "-"}, input);
    CHECK(r.signal == 0);
    CHECK(r.exit_code == 1);
    CHECK(r.out.empty());
    CHECK(r.err ==
          "cmfpipe: LimitExceeded: <anthropic response>:1:610: JSON nested deeper than 512 levels "
          "(max_depth)\n");
    check_hostile_bounds(r);
}

TEST_CASE("anthropic streamed tool input 100000 deep is flagged raw in bounds") {
    Scratch scratch;
    const std::string arguments = nested_arguments(100000);
    auto input =
        scratch.write("deep-stream.sse",
                      sse({message_start,
                           block_start(0, tool_use_start),
                           delta(0, {{"type", "input_json_delta"}, {"partial_json", arguments}}),
                           block_stop(0),
                           {{"type", "message_stop"}}}));
    auto r = run_cli_measured({"parse-output", "--from", "anthropic", "-"}, input);
    CHECK(r.signal == 0);
    REQUIRE(r.exit_code == 0);
    CHECK(Json::parse(r.out) ==
          expected(Json::array(),
                   {{"invalid_tool_arguments",
                     {{{"tool_call_id", "t1"},
                       {"name", "f"},
                       {"raw", arguments},
                       {"error",
                        "arguments are nested too deeply at 1:517: JSON nested deeper than 512 "
                        "levels (max_depth)"}}}}}));
    check_hostile_bounds(r);
}

TEST_CASE("anthropic SSE stream cut mid-event parses as far as it goes and is marked incomplete") {
    const std::string whole = sse({message_start, block_start(0, {{"type", "text"}, {"text", ""}}),
                                   delta(0, {{"type", "text_delta"}, {"text", "Hello"}})});
    const std::string cut = whole + "event: content_block_delta\ndata: {\"type\":\"content_bl";
    CHECK(parse_output(cut) ==
          expected({{{"content_type", "text"}, {"text", "Hello"}}}, {{"incomplete", true}}));
}

TEST_CASE("anthropic stream cut inside a tool_use keeps the partial JSON raw and flagged") {
    const std::string cut =
        sse({message_start, block_start(0, tool_use_start),
             delta(0, {{"type", "input_json_delta"}, {"partial_json", "{\"city\": \"Par"}})});
    CHECK(parse_output(cut) ==
          expected(Json::array(),
                   {{"incomplete", true},
                    {"invalid_tool_arguments",
                     {{{"tool_call_id", "t1"},
                       {"name", "f"},
                       {"raw", "{\"city\": \"Par"},
                       {"error",
                        "arguments are not valid JSON at 1:14: syntax error while parsing value - "
                        "invalid string: missing closing quote"}}}}}));
    // Cut right after the block started: no input was written, so none is made up.
    CHECK(parse_output(sse({message_start,
                            block_start(0, tool_use_start)}))[0]["extensions"]["custom"]
                                                             ["invalid_tool_arguments"][0]["raw"] ==
          "");
}

TEST_CASE("anthropic stream without message_stop is marked incomplete and with it is not") {
    const std::vector<Json> events = {
        message_start, block_start(0, {{"type", "text"}, {"text", ""}}),
        delta(0, {{"type", "text_delta"}, {"text", "Hi"}}), block_stop(0)};
    CHECK(parse_output(sse(events)) ==
          expected({{{"content_type", "text"}, {"text", "Hi"}}}, {{"incomplete", true}}));
    std::vector<Json> stopped = events;
    stopped.push_back({{"type", "message_stop"}});
    CHECK(parse_output(sse(stopped)) ==
          expected({{{"content_type", "text"}, {"text", "Hi"}}}, nullptr));
    CHECK(parse_output(Json(stopped).dump()) ==
          expected({{{"content_type", "text"}, {"text", "Hi"}}}, nullptr));
}
