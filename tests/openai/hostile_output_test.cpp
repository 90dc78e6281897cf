// Model output an attacker or a cut connection could send the openai adapter: nesting past the
// depth bound (refused or flagged with its location, never a crash) and streams that stop early
// (parsed as far as they go, custom.incomplete set).
#include <catch2/catch.hpp>

#include "cmfpipe/cmf/json.hpp"
#include "support/hostile.hpp"
#include "support/nested_json.hpp"
#include "support/process.hpp"
#include "support/registry.hpp"
#include "support/scratch.hpp"
#include "support/thrown.hpp"

namespace {

using cmfpipe::Json;
using namespace cmfpipe::testing;

Json parse_output(const std::string& completion) {
    auto adapter = bundled_plugins().make_adapter("openai");
    return cmfpipe::cmf::messages_to_json(adapter->from_wire(completion, Json::object()));
}

std::string chat_with_arguments(const std::string& arguments) {
    return Json{{"choices",
                 {{{"message",
                    {{"role", "assistant"},
                     {"tool_calls",
                      {{{"id", "c1"},
                        {"type", "function"},
                        {"function", {{"name", "f"}, {"arguments", arguments}}}}}}}}}}}}
        .dump();
}

const Json no_completion_fields = {{"stop_reason", nullptr}, {"tokens", nullptr},
                                   {"model", nullptr},       {"raw_format", "openai"},
                                   {"created_at", nullptr},  {"latency_ms", nullptr}};

}  // namespace

TEST_CASE("openai response body nested 100000 deep is LimitExceeded at its location in bounds") {
    Scratch scratch;
    auto input = scratch.write("deep.json", nested_arrays(100000));
    auto r = run_cli_measured({"parse-output", "--from", "openai", "-"}, input);
    CHECK(r.signal == 0);
    CHECK(r.exit_code == 1);
    CHECK(r.out.empty());
    CHECK(r.err ==
          "cmfpipe: LimitExceeded: <openai response>:1:513: JSON nested deeper than 512 levels "
          "(max_depth)\n");
    check_hostile_bounds(r);
}

TEST_CASE("openai function.arguments holding JSON 100000 deep are flagged raw in bounds") {
    Scratch scratch;
    const std::string arguments = nested_arguments(100000);
    auto input = scratch.write("deep-arguments.json", chat_with_arguments(arguments));
    auto r = run_cli_measured({"parse-output", "--from", "openai", "-"}, input);
    CHECK(r.signal == 0);
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.empty());
    CHECK(Json::parse(r.out) ==
          Json::array({{{"schema_version", "2.0"},
                        {"role", "assistant"},
                        {"content", Json::array()},
                        {"channel", nullptr},
                        {"extensions",
                         {{"completion", no_completion_fields},
                          {"custom",
                           {{"invalid_tool_arguments",
                             {{{"tool_call_id", "c1"},
                               {"name", "f"},
                               {"raw", arguments},
                               {"error",
                                "arguments are nested too deeply at 1:517: JSON nested deeper "
                                "than 512 levels (max_depth)"}}}}}}}}}}));
    check_hostile_bounds(r);
}

TEST_CASE("openai tool arguments 512 levels deep pass and 513 are flagged with the location") {
    Json pass = parse_output(chat_with_arguments(nested_arguments(512)));
    CHECK(pass[0]["content"][0]["content"]["arguments"] == Json::parse(nested_arguments(512)));
    CHECK_FALSE(pass[0]["extensions"].contains("custom"));
    Json over = parse_output(chat_with_arguments(nested_arguments(513)));
    CHECK(over[0]["content"] == Json::array());
    CHECK(over[0]["extensions"]["custom"]["invalid_tool_arguments"][0]["error"] ==
          "arguments are nested too deeply at 1:517: JSON nested deeper than 512 levels "
          "(max_depth)");
}

TEST_CASE("openai SSE stream cut mid-event parses as far as it goes and is marked incomplete") {
    const std::string cut =
        "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\","
        "\"content\":\"Hel\"}}]}\n\n"
        "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"}}]}\n\n"
        "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"cont";
    CHECK(
        parse_output(cut) ==
        Json::array(
            {{{"schema_version", "2.0"},
              {"role", "assistant"},
              {"content", {{{"content_type", "text"}, {"text", "Hello"}}}},
              {"channel", nullptr},
              {"extensions",
               {{"completion", no_completion_fields},
                {"provenance", {{"source", "openai"}, {"message_id", "x"}, {"parent_id", nullptr}}},
                {"custom", {{"incomplete", true}}}}}}}));
}

TEST_CASE("openai chat stream without the DONE event is marked incomplete and with it is not") {
    const std::string chunk =
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},"
        "\"finish_reason\":\"stop\"}]}\n\n";
    Json without = parse_output(chunk);
    CHECK(without[0]["extensions"]["custom"] == Json{{"incomplete", true}});
    CHECK(without[0]["content"][0]["text"] == "Hi");
    Json with = parse_output(chunk + "data: [DONE]\n\n");
    CHECK_FALSE(with[0]["extensions"].contains("custom"));
}

TEST_CASE("openai Responses stream without response.completed gives the text its deltas carried") {
    const std::string cut =
        "event: response.created\n"
        "data: {\"type\":\"response.created\",\"response\":{\"id\":\"r1\",\"object\":\"response\","
        "\"status\":\"in_progress\",\"model\":\"gpt-4o\",\"output\":[]}}\n\n"
        "data: {\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\"type\":"
        "\"message\",\"role\":\"assistant\",\"content\":[]}}\n\n"
        "data: {\"type\":\"response.content_part.added\",\"output_index\":0,\"content_index\":0,"
        "\"part\":{\"type\":\"output_text\",\"text\":\"\"}}\n\n"
        "data: {\"type\":\"response.output_text.delta\",\"output_index\":0,\"content_index\":0,"
        "\"delta\":\"Hello\"}\n\n"
        "data: {\"type\":\"response.output_text.delta\",\"output_index\":0,\"content_index\":0,"
        "\"delta\":\" wor\"}\n\n"
        "data: {\"type\":\"response.output_text.delta\",\"output_index\":0,\"content_";
    CHECK(parse_output(cut) ==
          Json::array(
              {{{"schema_version", "2.0"},
                {"role", "assistant"},
                {"content", {{{"content_type", "text"}, {"text", "Hello wor"}}}},
                {"channel", nullptr},
                {"extensions",
                 {{"completion",
                   {{"stop_reason", nullptr},
                    {"tokens", nullptr},
                    {"model", "gpt-4o"},
                    {"raw_format", "openai-responses"},
                    {"created_at", nullptr},
                    {"latency_ms", nullptr}}},
                  {"provenance",
                   {{"source", "openai"}, {"message_id", "r1"}, {"parent_id", nullptr}}},
                  {"custom", {{"incomplete", true}, {"provider_stop_reason", "in_progress"}}}}}}}));
}
