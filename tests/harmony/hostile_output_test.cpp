// Harmony completions an attacker or a broken model could send: calls nested past the depth
// bound (flagged, never a crash), stray <|start|> markers (one rule for all of them), and a very
// long completion (linear time, memory within 4x the input).
#include <catch2/catch.hpp>

#include "adapter_access.hpp"
#include "support/hostile.hpp"
#include "support/nested_json.hpp"
#include "support/process.hpp"
#include "support/scratch.hpp"
#include "support/thrown.hpp"

using namespace harmony_test;
using namespace cmfpipe::testing;

namespace {

std::string call(const std::string& arguments) {
    return "<|start|>assistant to=functions.f<|channel|>commentary json<|message|>" + arguments +
           "<|call|>";
}

Json parse_output(const std::string& completion) {
    return messages_to_json(adapter()->from_wire(completion, Json::object()));
}

Json flagged(const std::string& arguments, const std::string& error) {
    return Json::array({{{"schema_version", "2.0"},
                         {"role", "assistant"},
                         {"content", Json::array()},
                         {"channel", "commentary"},
                         {"extensions",
                          {{"completion",
                            {{"stop_reason", "call"},
                             {"tokens", nullptr},
                             {"model", nullptr},
                             {"raw_format", "harmony"},
                             {"created_at", nullptr},
                             {"latency_ms", nullptr}}},
                           {"custom",
                            {{"harmony", {{"content_type", "json"}}},
                             {"invalid_tool_arguments",
                              {{{"tool_call_id", "call_1"},
                                {"name", "f"},
                                {"raw", arguments},
                                {"error", error}}}}}}}}}});
}

const std::string too_deep =
    "arguments are nested too deeply at 1:517: JSON nested deeper than 512 levels (max_depth)";

}  // namespace

TEST_CASE("harmony call with arguments 100000 deep is flagged raw in bounds") {
    Scratch scratch;
    const std::string arguments = nested_arguments(100000);
    auto input = scratch.write("deep.txt", call(arguments));
    auto r = run_cli_measured({"parse-output", "--from", "harmony", "-"}, input);
    CHECK(r.signal == 0);
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.empty());
    CHECK(Json::parse(r.out) == flagged(arguments, too_deep));
    check_hostile_bounds(r);
}

TEST_CASE("harmony call arguments 512 levels deep pass and 513 are flagged with the location") {
    Json pass = parse_output(call(nested_arguments(512)));
    CHECK(pass[0]["content"][0]["content"]["arguments"] == Json::parse(nested_arguments(512)));
    CHECK(parse_output(call(nested_arguments(513))) == flagged(nested_arguments(513), too_deep));
}

TEST_CASE("harmony <|start|> inside a header fails the same whether or not a role came first") {
    // Only the header the prompt opened may be re-opened by the completion's own <|start|>.
    CHECK(parse_output("<|start|>assistant<|message|>hi<|end|>")[0]["content"][0]["text"] == "hi");
    CHECK(thrown_error([] { parse_output("<|start|><|start|><|start|>"); }) ==
          "ValueError: completion:1:10: harmony: <|start|> inside the message header ''");
    CHECK(thrown_error([] { parse_output("<|start|>assistant<|start|>"); }) ==
          "ValueError: completion:1:19: harmony: <|start|> inside the message header 'assistant'");
    CHECK(thrown_error([] {
              adapter()->from_wire("<|start|><|start|>", {{"role", nullptr}});
          }) == "ValueError: completion:1:10: harmony: <|start|> inside the message header ''");
}

TEST_CASE("harmony 50 MB of small messages parses in linear time within 4x its size in memory") {
    const std::string message = "<|start|>assistant<|channel|>final<|message|>hello<|end|>";
    std::string text;
    text.reserve(50u << 20);
    while (text.size() + message.size() <= (50u << 20)) text += message;
    const std::size_t count = text.size() / message.size();
    Scratch scratch;
    auto input = scratch.write("long.txt", text);
    text = std::string();
    auto r = run_cli_measured({"parse-output", "--from", "harmony", "-"}, input, 120);
    CHECK(r.signal == 0);
    REQUIRE(r.exit_code == 0);
    // Every message printed, the last one whole.
    std::size_t printed = 0;
    for (std::size_t at = 0; (at = r.out.find("\"schema_version\"", at)) != std::string::npos; ++at)
        ++printed;
    CHECK(printed == count);
    CHECK(r.out.substr(r.out.size() - 4) == "}\n]\n");
    if (!kSanitized) CHECK(r.max_rss_kb < 4 * 50 * 1024);  // ASan's shadow memory is not ours
    CHECK_FALSE(r.killed);
    WARN("50 MB harmony: " << r.seconds << " s, " << r.max_rss_kb / 1024 << " MB resident");
}
