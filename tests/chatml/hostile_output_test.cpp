// Tool calls nested past the depth bound inside a ChatML completion: the call stands, its
// arguments are kept raw and flagged with where they went over (the one tool-arguments rule),
// never a crash.
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

std::string tool_call(const std::string& arguments) {
    return "<tool_call>{\"name\":\"f\",\"arguments\":" + arguments + "}</tool_call>";
}

Json parse_output(const std::string& completion) {
    auto adapter = bundled_plugins().make_adapter("chatml");
    return cmfpipe::cmf::messages_to_json(adapter->from_wire(completion, {{"complete", true}}));
}

Json flagged(const std::string& arguments, const std::string& error) {
    return Json::array({{{"schema_version", "2.0"},
                         {"role", "assistant"},
                         {"content", Json::array()},
                         {"channel", nullptr},
                         {"extensions",
                          {{"completion",
                            {{"stop_reason", nullptr},
                             {"tokens", nullptr},
                             {"model", nullptr},
                             {"raw_format", "chatml"},
                             {"created_at", nullptr},
                             {"latency_ms", nullptr}}},
                           {"custom",
                            {{"invalid_tool_arguments",
                              {{{"tool_call_id", "call_1"},
                                {"name", "f"},
                                {"raw", arguments},
                                {"error", error}}}}}}}}}});
}

const std::string too_deep =
    "arguments are nested too deeply at 1:517: JSON nested deeper than 512 levels (max_depth)";

}  // namespace

TEST_CASE("chatml tool call with arguments 100000 deep is flagged raw in bounds") {
    Scratch scratch;
    const std::string arguments = nested_arguments(100000);
    auto input = scratch.write("deep.txt", tool_call(arguments));
    auto r = run_cli_measured(
        {"parse-output", "--from", "chatml", "--option", "complete=true", "-"}, input);
    CHECK(r.signal == 0);
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.empty());
    CHECK(Json::parse(r.out) == flagged(arguments, too_deep));
    check_hostile_bounds(r);
}

TEST_CASE("chatml tool arguments 512 levels deep pass and 513 are flagged with the location") {
    Json pass = parse_output(tool_call(nested_arguments(512)));
    CHECK(pass[0]["content"][0]["content"]["arguments"] == Json::parse(nested_arguments(512)));
    CHECK_FALSE(pass[0]["extensions"].contains("custom"));
    CHECK(parse_output(tool_call(nested_arguments(513))) ==
          flagged(nested_arguments(513), too_deep));
}

TEST_CASE("chatml tool call too deep outside its arguments stays text with a located error") {
    // No arguments to set aside: the depth is in the call itself, which is not a call then.
    const std::string block =
        "<tool_call>{\"name\":\"f\",\"x\":" + nested_arrays(600) + "}</tool_call>";
    Json out = parse_output(block);
    CHECK(out[0]["content"] == Json::array({{{"content_type", "text"}, {"text", block}}}));
    CHECK(out[0]["extensions"]["custom"]["parse_errors"] ==
          Json::array({{{"message",
                         "a tool call is nested too deeply: JSON nested deeper than 512 levels "
                         "(max_depth)"},
                        {"line", 1},
                        {"column", 539}}}));
}
