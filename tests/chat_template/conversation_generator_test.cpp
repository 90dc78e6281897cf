// The generated conversations (conversation_generator.hpp) over the corpus, rendered by the
// oracle: every turn the template renders parses without an error and gives exactly the calls
// the turn writes (names and arguments; all of the message's, its first only or none, as the
// template renders them); every prefix parsed with partial=true shows only what the whole
// parse has.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <set>

#include "conversation_generator.hpp"
#include "round_trip_parse.hpp"
#include "support/hostile.hpp"

namespace {

using cmfpipe::Json;
using namespace cmfpipe::testing;

// The calls the turn writes: the message's first calls, as long as each one's name follows the
// one before in the turn (a template may write the first call only, or none).
std::vector<RoundTripCall> rendered_calls(const RoundTripTurn& turn) {
    std::vector<RoundTripCall> out;
    std::size_t from = 0;
    for (const RoundTripCall& call : turn.expected.calls) {
        const std::size_t at = turn.completion.find(call.name, from);
        if (at == std::string::npos) break;
        out.push_back(call);
        from = at + call.name.size();
    }
    return out;
}

std::string calls_text(const std::vector<RoundTripCall>& calls) {
    std::string out;
    for (const RoundTripCall& call : calls) out += call.name + call.arguments.dump() + "\n";
    return out;
}

void note_value(std::set<std::string>& seen, const Json& value) {
    if (value.is_string()) {
        const std::string s = value.get<std::string>();
        if (s.find('"') != std::string::npos) seen.insert("string with a quote");
        if (s.find('\n') != std::string::npos) seen.insert("string with a newline");
        if (s.find('\\') != std::string::npos) seen.insert("string with a backslash");
        for (const char c : s)
            if (static_cast<unsigned char>(c) >= 0x80) seen.insert("string with non-ASCII");
    } else if (value.is_number_integer()) {
        seen.insert(value.get<std::int64_t>() < 0 ? "negative integer" : "integer");
    } else if (value.is_number_float()) {
        seen.insert("number");
    } else if (value.is_boolean()) {
        seen.insert(value.get<bool>() ? "true" : "false");
    } else if (value.is_null()) {
        seen.insert("null");
    } else if (value.is_object()) {
        seen.insert("nested object");
        for (const auto& [key, field] : value.items()) note_value(seen, field);
    } else if (value.is_array()) {
        seen.insert(value.empty() ? "empty array" : "array");
        for (const Json& item : value) note_value(seen, item);
    }
}

}  // namespace

TEST_CASE("conversation generator: a seed gives the same conversations of every argument type") {
    const auto a = generate_conversations(generated_seed, generated_count);
    const auto b = generate_conversations(generated_seed, generated_count);
    REQUIRE(a.size() == generated_count);
    std::set<std::string> seen;
    for (std::size_t i = 0; i < a.size(); ++i) {
        CHECK(a[i].name == "generated_" + std::to_string(i));
        CHECK(a[i].tools == b[i].tools);
        CHECK(calls_text(a[i].assistant.calls) == calls_text(b[i].assistant.calls));
        seen.insert(std::to_string(a[i].tools.size()) + " tools");
        seen.insert(std::to_string(a[i].assistant.calls.size()) + " calls");
        if (a[i].assistant.reasoning) seen.insert("reasoning");
        if (!a[i].assistant.text.empty()) seen.insert("text");
        for (const RoundTripCall& call : a[i].assistant.calls) {
            note_value(seen, call.arguments);
            CHECK(call.id.size() == 9);
        }
    }
    seen.erase("nested object");  // the arguments object itself; nested ones are noted below
    for (const auto& c : a)
        for (const RoundTripCall& call : c.assistant.calls)
            for (const auto& [key, value] : call.arguments.items())
                if (value.is_object()) seen.insert("nested object");
    CHECK(seen == std::set<std::string>{"1 tools",
                                        "2 tools",
                                        "3 tools",
                                        "1 calls",
                                        "2 calls",
                                        "3 calls",
                                        "reasoning",
                                        "text",
                                        "string with a quote",
                                        "string with a newline",
                                        "string with a backslash",
                                        "string with non-ASCII",
                                        "integer",
                                        "negative integer",
                                        "number",
                                        "true",
                                        "false",
                                        "null",
                                        "nested object",
                                        "array",
                                        "empty array"});
    // The conversations the tables of this file and of the grammar's test were written against
    // (a platform or a change that draws otherwise shows here first).
    CHECK(calls_text(a[1].assistant.calls) ==
          "convert_recipe_v2{\"count\":1568907}\nset_user_profile{\"options\":[673.625,"
          "-453.125,485.875],\"query\":\"it's\",\"filter\":false,\"ratio\":[]}\n");
    // Another seed, other conversations.
    CHECK(generate_conversations(generated_seed + 1, 1)[0].tools != a[0].tools);
    // The draws are mt19937's raw output reduced by rejection: the same on every platform.
    SeededDraws draws(generated_seed);
    std::vector<std::uint32_t> first;
    for (int i = 0; i < 6; ++i) first.push_back(draws.below(1000));
    std::mt19937 engine(generated_seed);
    std::vector<std::uint32_t> expected;
    for (int i = 0; i < 6; ++i) expected.push_back(static_cast<std::uint32_t>(engine() % 1000));
    CHECK(first == expected);  // 2^32 % 1000 rejections are rare enough to miss six draws
}

namespace {

// What the generated conversations meet that is not a faithful round trip, per template, as data
// with the reason. The test fails on any other and on a row that no longer holds.
struct GeneratedRefusal {
    std::size_t turns;
    const char* error;  // the start of the template's exception
    const char* why;
};
const std::map<std::string, GeneratedRefusal> generated_refusals = {
    {"Kimi-K2-Instruct",
     {24, "SecurityError: access to attribute 'append' of 'list' object is unsafe.",
      "the template appends to a list for a turn with calls, which the immutable sandbox "
      "refuses"}},
    {"Kimi-K2-Thinking",
     {24, "SecurityError: access to attribute 'append' of 'list' object is unsafe.",
      "as Kimi-K2-Instruct"}},
    {"NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use",
     {13, "RecursionError: maximum recursion depth exceeded",
      "the template's json_to_python_type recurses without end on an array parameter "
      "(json_spec|items is the dict filter, not the schema's items)"}},
    {"llama-cpp-deepseek-r1",
     {24, "TypeError: Object of type generator is not JSON serializable",
      "the template pipes map() into tojson"}},
    {"meetkai-functionary-medium-v3.2",
     {24, "TypeError: can only concatenate str (not \"dict\") to str",
      "the template concatenates the arguments as text"}},
    {"meta-llama-Llama-3.2-3B-Instruct",
     {10, "TemplateError: This model only supports single tool-calls at once!",
      "the template raises for more than one call"}},
    {"meta-llama-Llama-3.3-70B-Instruct",
     {10, "TemplateError: This model only supports single tool-calls at once!",
      "the template raises for more than one call"}},
};

struct GeneratedDifference {
    std::set<std::string> cases;
    const char* why;
};
const std::map<std::string, GeneratedDifference> generated_differences = {
    {"NVIDIA-Nemotron-Nano-v2",
     {{"generated_6", "generated_8", "generated_9", "generated_12", "generated_13", "generated_14",
       "generated_16", "generated_17", "generated_20", "generated_21"},
      "with text beside the calls the template writes the last turn as <think> followed by the "
      "text, expecting the raw completion, and the calls in a second assistant turn: the turn "
      "reads as reasoning to its end (as the table's reasoning_text_call)"}},
};

// Templates whose stream (partial=true) shows, in some turns, what the whole parse does not.
// Turns whose stream (partial=true) shows what the whole parse does not, per template: the
// cases, or none listed for every turn the template renders.
const std::map<std::string, GeneratedDifference> generated_partial_exceptions = {
    {"Apriel-1.6-15b-Thinker-fixed",
     {{"generated_6", "generated_9", "generated_12", "generated_14"},
      "the turns of text without reasoning: the reasoning is delimiter style (no start, ends at "
      "[BEGIN FINAL RESPONSE]), so a stream shows such text as reasoning until the end of the "
      "completion says it was the answer, which a stream cannot know before (a turn of calls: "
      "its opener ends the reasoning)"}},
};

}  // namespace

TEST_CASE("conversation generator: over the corpus every parse gives the calls the turn renders") {
    const auto adapter = chat_template_adapter();
    const auto started = std::chrono::steady_clock::now();
    std::size_t parsed = 0, with_calls = 0, equal = 0, prefixes = 0, calls_compared = 0;
    std::map<std::string, std::size_t> refused;
    std::map<std::string, std::set<std::string>> differing;
    std::map<std::string, std::set<std::string>> partial_failing;
    std::map<std::string, std::set<std::string>> rendered_turns;
    for (const RoundTripTurn& turn : generated_round_trips()) {
        INFO(turn.template_name << " x " << turn.case_name
                                << "\nturn: " << Json(turn.completion).dump());
        if (!turn.error.empty()) {
            ++refused[turn.template_name];
            const auto row = generated_refusals.find(turn.template_name);
            REQUIRE(row != generated_refusals.end());
            CHECK(turn.error.starts_with(row->second.error));
            continue;
        }
        ParsedTurn whole;
        REQUIRE_NOTHROW(whole = parse_turn(*adapter, turn.completion, turn.options));
        ++parsed;
        rendered_turns[turn.template_name].insert(turn.case_name);
        Json options = turn.options;
        options["partial"] = true;
        std::string first_problem;
        ParsedTurn before;
        // Every prefix that ends on a character boundary; under the sanitizers (ten times
        // slower) every fourth one and the whole: the whole turns and their calls are checked
        // the same, the stream checks see a quarter of the steps.
        const std::size_t stride = cmfpipe::testing::kSanitized ? 4 : 1;
        std::size_t boundary = 0;
        for (std::size_t n = 0; n <= turn.completion.size(); ++n) {
            if (n < turn.completion.size() &&
                (static_cast<unsigned char>(turn.completion[n]) & 0xC0) == 0x80)
                continue;
            if (boundary++ % stride != 0 && n < turn.completion.size()) continue;
            ++prefixes;
            ParsedTurn prefix;
            REQUIRE_NOTHROW(prefix = parse_turn(*adapter, turn.completion.substr(0, n), options));
            if (first_problem.empty()) first_problem = partial_inconsistency(prefix, whole);
            if (first_problem.empty()) first_problem = stream_regression(before, prefix);
            before = std::move(prefix);
        }
        if (!first_problem.empty()) {
            partial_failing[turn.template_name].insert(turn.case_name);
            INFO("partial: " << first_problem);
            CHECK(generated_partial_exceptions.count(turn.template_name));
        }
        const std::vector<RoundTripCall> rendered = rendered_calls(turn);
        with_calls += rendered.size() == turn.expected.calls.size();
        calls_compared += rendered.size();
        if (same_calls(whole.calls, rendered)) {
            equal += rendered.size() == turn.expected.calls.size();
        } else {
            differing[turn.template_name].insert(turn.case_name);
            INFO("want: " << calls_text(rendered) << "got: " << calls_text(whole.calls));
            CHECK(generated_differences.count(turn.template_name));
        }
    }
    for (const auto& [name, row] : generated_refusals) {
        INFO(name << ": " << row.why);
        CHECK(refused[name] == row.turns);
    }
    for (const auto& [name, row] : generated_differences) {
        INFO(name << ": " << row.why);
        CHECK(differing[name] == row.cases);
    }
    for (const auto& [name, row] : generated_partial_exceptions) {
        INFO(name << ": " << row.why);
        CHECK(partial_failing[name] == (row.cases.empty() ? rendered_turns[name] : row.cases));
    }
    CHECK(generated_round_trips().size() == 42 * generated_count);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::size_t refused_turns = 0;
    for (const auto& [name, n] : refused) refused_turns += n;
    std::cout << "generated round trips (seed " << generated_seed << ", " << generated_count
              << " conversations x 42 templates): " << refused_turns
              << " refused by their template, " << parsed << " parsed, " << with_calls
              << " render all their calls, " << equal
              << " give them back exactly; the calls the turns render (" << calls_compared
              << ") compared with the parses; " << prefixes
              << " prefixes parsed with partial=true in " << seconds << " s\n";
}

// Not run by ctest (hidden): more conversations from another seed, to look for failures the
// fixed seed does not meet. CMFPIPE_GENERATOR_SEED and CMFPIPE_GENERATOR_COUNT choose them; each
// turn whose parse differs from the calls it renders, or whose stream shows what the whole parse
// does not, is printed.
TEST_CASE("conversation generator: explore another seed", "[.explore]") {
    const char* seed = std::getenv("CMFPIPE_GENERATOR_SEED");
    const char* count = std::getenv("CMFPIPE_GENERATOR_COUNT");
    const auto turns = render_round_trips(
        generate_conversations(seed ? std::stoul(seed) : 1, count ? std::stoul(count) : 100));
    const auto adapter = chat_template_adapter();
    std::map<std::string, std::size_t> differing, streaming;
    for (const RoundTripTurn& turn : turns) {
        if (!turn.error.empty()) continue;
        ParsedTurn whole;
        try {
            whole = parse_turn(*adapter, turn.completion, turn.options);
        } catch (const cmfpipe::Error& e) {
            std::cout << "ERROR " << turn.template_name << " " << turn.case_name << ": " << e.what()
                      << "\n";
            continue;
        }
        const std::vector<RoundTripCall> rendered = rendered_calls(turn);
        if (!same_calls(whole.calls, rendered)) {
            ++differing[turn.template_name];
            std::cout << "DIFF " << turn.template_name << " " << turn.case_name
                      << "\n  prefill tail: "
                      << Json(turn.prefill.substr(turn.prefill.size() -
                                                  std::min<std::size_t>(60, turn.prefill.size())))
                             .dump()
                      << "\n  turn: " << Json(turn.completion).dump()
                      << "\n  want: " << calls_text(rendered)
                      << "  got: " << calls_text(whole.calls) << "\n";
        }
        Json options = turn.options;
        options["partial"] = true;
        ParsedTurn before;
        for (std::size_t n = 0; n <= turn.completion.size(); ++n) {
            if (n < turn.completion.size() &&
                (static_cast<unsigned char>(turn.completion[n]) & 0xC0) == 0x80)
                continue;
            const ParsedTurn now = parse_turn(*adapter, turn.completion.substr(0, n), options);
            std::string problem = partial_inconsistency(now, whole);
            if (problem.empty()) problem = stream_regression(before, now);
            if (!problem.empty()) {
                ++streaming[turn.template_name];
                std::cout << "STREAM " << turn.template_name << " " << turn.case_name << ": prefix "
                          << Json(turn.completion.substr(0, n)).dump() << ": " << problem << "\n";
                break;
            }
            before = now;
        }
    }
    for (const auto& [name, n] : differing) std::cout << "differ: " << name << " " << n << "\n";
    for (const auto& [name, n] : streaming) std::cout << "stream: " << name << " " << n << "\n";
}
