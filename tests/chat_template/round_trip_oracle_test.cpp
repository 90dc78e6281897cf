// Round trips over every corpus template, rendered by the oracle (round_trip_cases.hpp), in three
// shapes: one call; two parallel calls; reasoning, text and a call. Each assistant turn the
// oracle renders is read back by from_wire, whole (the table below: exactly these parts) and cut
// at every UTF-8 character boundary with partial=true (never a part the whole parse lacks).
#include <catch2/catch.hpp>

#include <chrono>
#include <iostream>
#include <map>
#include <set>

#include "round_trip_parse.hpp"

namespace {

using cmfpipe::Json;
using namespace cmfpipe::testing;

std::string first_bytes(const std::string& text) {
    return Json(text.substr(0, 24)).dump();
}

// What the turn renders of the message, as words: "reasoning", "text", "call" (one per call
// whose name the turn holds).
std::string rendered_words(const RoundTripTurn& turn) {
    std::string out;
    const auto add = [&](const std::string& word) { out += (out.empty() ? "" : " ") + word; };
    if (turn.expected.reasoning &&
        turn.completion.find(*turn.expected.reasoning) != std::string::npos)
        add("reasoning");
    if (!turn.expected.text.empty() &&
        turn.completion.find(turn.expected.text) != std::string::npos)
        add("text");
    for (const RoundTripCall& call : turn.expected.calls)
        if (turn.completion.find(call.name) != std::string::npos) add("call");
    return out;
}

// What from_wire read back, as words: "reasoning", "text", "call" for a part equal to the
// message's (the n-th call to its n-th call), "id=ID" for a call's id, "thinking=...", "text=..."
// or "call=..." (their first 24 bytes) for a part that differs, "custom=..." for the extensions.
std::string parsed_words(const RoundTripTurn& turn, const ParsedTurn& parsed) {
    std::string out;
    const auto add = [&](const std::string& word) { out += (out.empty() ? "" : " ") + word; };
    if (!parsed.reasoning.empty())
        add(turn.expected.reasoning && parsed.reasoning == *turn.expected.reasoning
                ? "reasoning"
                : "thinking=" + first_bytes(parsed.reasoning));
    if (!parsed.text.empty())
        add(parsed.text == turn.expected.text ? "text" : "text=" + first_bytes(parsed.text));
    for (std::size_t i = 0; i < parsed.calls.size(); ++i) {
        const RoundTripCall& call = parsed.calls[i];
        const bool same = i < turn.expected.calls.size() &&
                          call.name == turn.expected.calls[i].name &&
                          same_json(call.arguments, turn.expected.calls[i].arguments);
        add(same ? "call" : "call=" + first_bytes(call.name + call.arguments.dump()));
        if (!call.id.empty()) add("id=" + call.id);
    }
    if (!parsed.custom.empty()) add("custom=" + parsed.custom.dump());
    return out;
}

// The outcome of a turn: "refused: Type: message" where the template raised, else the words.
std::string outcome(const cmfpipe::Adapter& adapter, const RoundTripTurn& turn) {
    if (!turn.error.empty()) return "refused: " + turn.error.substr(0, turn.error.find('\n'));
    try {
        return parsed_words(turn, parse_turn(adapter, turn.completion, turn.options));
    } catch (const cmfpipe::Error& e) {
        return std::string("error: ") + e.what();
    }
}

// What from_wire reads back of each shape, per template. A cell without a reason is exactly
// what the template renders of the message (rendered_words); a cell with one says why not (a
// template that raises, one that renders the turn so that its parts cannot come back, a parser
// failure still open).
struct Cell {
    const char* parsed;
    const char* why = "";
};

struct ShapeRow {
    const char* name;
    Cell one_call, two_calls, reasoning_text_call;
};

constexpr const char* kimi_refuses =
    "the template appends to a list for a turn with calls, which transformers' immutable sandbox "
    "refuses";
constexpr const char* no_calls = "the template renders no calls";
constexpr const char* first_call_only = "the template renders the first call only";
constexpr const char* single_call =
    "refused: TemplateError: This model only supports single tool-calls at once!";

const ShapeRow shape_rows[] = {
    {"Apertus-8B-Instruct", {"call"}, {"call call"}, {"text call"}},
    {"Apriel-1.6-15b-Thinker-fixed", {"call"}, {"call call"}, {"reasoning text call"}},
    {"ByteDance-Seed-OSS", {"call"}, {"call call"}, {"reasoning text call"}},
    {"Cohere2MoE", {"call id=0"}, {"call id=0 call id=1"}, {"reasoning call id=0"}},
    {"CohereForAI-c4ai-command-r7b-12-2024-tool_use",
     {"call id=0"},
     {"call id=0 call id=1"},
     {"reasoning call id=0"}},
    {"GLM-4.6", {"call"}, {"call call"}, {"reasoning text call"}},
    {"GigaChat3-10B-A1.8B", {"call"}, {"call", first_call_only}, {"text call"}},
    {"GigaChat3.1-10B-A1.8B", {"call"}, {"call", first_call_only}, {"text call"}},
    {"Kimi-K2-Instruct",
     {"refused: SecurityError: access to attribute 'append' of 'list' object is unsafe.",
      kimi_refuses},
     {"refused: SecurityError: access to attribute 'append' of 'list' object is unsafe.",
      kimi_refuses},
     {"refused: SecurityError: access to attribute 'append' of 'list' object is unsafe.",
      kimi_refuses}},
    {"Kimi-K2-Thinking",
     {"refused: SecurityError: access to attribute 'append' of 'list' object is unsafe.",
      kimi_refuses},
     {"refused: SecurityError: access to attribute 'append' of 'list' object is unsafe.",
      kimi_refuses},
     {"refused: SecurityError: access to attribute 'append' of 'list' object is unsafe.",
      kimi_refuses}},
    {"LFM2.5-8B-A1B", {"call"}, {"call call"}, {"text call"}},
    {"LFM2.5-Instruct", {"", no_calls}, {"", no_calls}, {"text"}},
    {"MiniMax-M2", {"call"}, {"call call"}, {"reasoning text call"}},
    {"Mistral-Small-3.2-24B-Instruct-2506",
     {"call id=abc123XYZ"},
     {"call id=abc123XYZ call id=def456UVW"},
     {"call id=abc123XYZ"}},
    {"NVIDIA-Nemotron-Nano-v2",
     {"call"},
     {"call call"},
     {"thinking=\"Let me look that up.\\n<SP\" custom={\"incomplete\":true}",
      "the template writes the last turn as <think> followed by its content, expecting the raw "
      "completion (reasoning, </think>, answer) as content, and its calls in a second turn"}},
    {"NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use", {"call"}, {"call call"}, {"call"}},
    {"Qwen-QwQ-32B", {"call"}, {"call call"}, {"text call"}},
    {"Qwen-Qwen2.5-7B-Instruct", {"call"}, {"call call"}, {"text call"}},
    {"Qwen3-Coder", {"call"}, {"call call"}, {"text call"}},
    {"Qwen3.5-4B", {"call"}, {"call call"}, {"reasoning text call"}},
    {"StepFun3.5-Flash", {"call"}, {"call call"}, {"reasoning text call"}},
    {"deepseek-ai-DeepSeek-R1-Distill-Llama-8B", {"", no_calls}, {"", no_calls}, {"text"}},
    {"deepseek-ai-DeepSeek-V3.1", {"call"}, {"call call"}, {"text call"}},
    {"deepseek-ai-DeepSeek-V3.2", {"call"}, {"call call"}, {"reasoning text call"}},
    {"fireworks-ai-llama-3-firefunction-v2", {"call"}, {"call call"}, {"text call"}},
    {"google-gemma-2-2b-it", {"", no_calls}, {"", no_calls}, {"text"}},
    {"google-gemma-4-31B-it", {"call"}, {"call call"}, {"reasoning text call"}},
    {"ibm-granite-granite-3.3-2B-Instruct", {"", no_calls}, {"", no_calls}, {"text"}},
    {"ibm-granite-granite-4.1", {"call"}, {"call call"}, {"text call"}},
    {"llama-cpp-deepseek-r1",
     {"refused: TypeError: Object of type generator is not JSON serializable",
      "the template pipes map() into tojson, which Python Jinja2 refuses"},
     {"refused: TypeError: Object of type generator is not JSON serializable",
      "the template pipes map() into tojson, which Python Jinja2 refuses"},
     {"refused: TypeError: Object of type generator is not JSON serializable",
      "the template pipes map() into tojson, which Python Jinja2 refuses"}},
    {"meetkai-functionary-medium-v3.1", {"call"}, {"call call"}, {"text call"}},
    {"meetkai-functionary-medium-v3.2",
     {"refused: TypeError: can only concatenate str (not \"dict\") to str",
      "the template concatenates the arguments as text; transformers hands them over as an "
      "object"},
     {"refused: TypeError: can only concatenate str (not \"dict\") to str",
      "the template concatenates the arguments as text"},
     {"refused: TypeError: can only concatenate str (not \"dict\") to str",
      "the template concatenates the arguments as text"}},
    {"meta-llama-Llama-3.2-3B-Instruct",
     {"call"},
     {single_call, "the template raises for more than one call"},
     {"call"}},
    {"meta-llama-Llama-3.3-70B-Instruct",
     {"call"},
     {single_call, "the template raises for more than one call"},
     {"call"}},
    {"mistralai-Ministral-3-14B-Reasoning-2512", {"call"}, {"call call"}, {"text call"}},
    {"mistralai-Mistral-Nemo-Instruct-2407",
     {"call id=abc123XYZ"},
     {"call id=abc123XYZ call id=def456UVW"},
     {"call id=abc123XYZ"}},
    {"openai-gpt-oss-120b",
     {"call"},
     {"call", first_call_only},
     {"thinking=\"Let me look that up.\" call",
      "the template writes the text beside calls in the analysis channel, which is reasoning"}},
    {"openbmb-MiniCPM5-1B", {"call"}, {"call call"}, {"reasoning text call"}},
    {"poolside-Laguna-XS-2.1", {"call"}, {"call call"}, {"reasoning text call"}},
    {"poolside-Laguna-XS.2", {"call"}, {"call call"}, {"reasoning text call"}},
    {"unsloth-Apriel-1.5", {"call"}, {"call call"}, {"text call"}},
    {"unsloth-mistral-Devstral-Small-2507", {"call"}, {"call call"}, {"text call"}},
};

const Cell& cell_of(const ShapeRow& row, const std::string& shape) {
    if (shape == "one_call") return row.one_call;
    if (shape == "two_calls") return row.two_calls;
    if (shape == "reasoning_text_call") return row.reasoning_text_call;
    throw cmfpipe::Error("no shape " + shape);
}

// The words without their ids: what a faithful round trip gives back of the rendered parts.
std::string without_ids(const std::string& words) {
    std::string out;
    std::size_t from = 0;
    while (from < words.size()) {
        std::size_t to = words.find(' ', from);
        if (to == std::string::npos) to = words.size();
        const std::string word = words.substr(from, to - from);
        if (!word.starts_with("id=")) out += (out.empty() ? "" : " ") + word;
        from = to + 1;
    }
    return out;
}

const ShapeRow* row_of(const std::string& name) {
    for (const ShapeRow& row : shape_rows)
        if (name == row.name) return &row;
    return nullptr;
}

}  // namespace

TEST_CASE("round trip by the oracle: 42 templates x 3 shapes give back the table's parts") {
    const auto& turns = shape_round_trips();
    const auto names = round_trip_template_names();
    REQUIRE(names.size() == 42);
    std::set<std::string> listed;
    for (const ShapeRow& row : shape_rows) listed.insert(row.name);
    CHECK(listed == std::set<std::string>(names.begin(), names.end()));
    REQUIRE(turns.size() == 42 * 3);

    const auto adapter = chat_template_adapter();
    std::size_t as_rendered = 0;
    std::set<std::string> cut_prompts;  // templates whose turn does not continue the whole prompt
    for (const RoundTripTurn& turn : turns) {
        if (turn.error.empty() && turn.prefill != turn.prompt)
            cut_prompts.insert(turn.template_name + " " + turn.case_name);
        INFO(turn.template_name << " x " << turn.case_name
                                << "\nturn: " << Json(turn.completion).dump());
        const ShapeRow* row = row_of(turn.template_name);
        REQUIRE(row);
        const Cell& cell = cell_of(*row, turn.case_name);
        const std::string parsed = outcome(*adapter, turn);
        CHECK(parsed == cell.parsed);
        if (std::string_view(cell.why).empty()) {
            CHECK(turn.error.empty());
            CHECK(without_ids(parsed) == rendered_words(turn));
        }
        as_rendered += turn.error.empty() && without_ids(parsed) == rendered_words(turn);
    }
    std::cout << "round trip by the oracle: " << as_rendered << " of " << turns.size()
              << " turns give back exactly the parts they render; " << cut_prompts.size()
              << " continue only part of the prompt:";
    for (const std::string& cut : cut_prompts) std::cout << " " << cut;
    std::cout << "\n";
}

namespace {

// Turns whose stream shows what the whole parse does not: (template, shape) -> why. Empty when
// every prefix holds.
const std::map<std::pair<std::string, std::string>, std::string> partial_exceptions = {};

bool utf8_boundary(const std::string& text, std::size_t at) {
    return at == text.size() || (static_cast<unsigned char>(text[at]) & 0xC0) != 0x80;
}

}  // namespace

TEST_CASE(
    "round trip by the oracle: every prefix parsed with partial=true shows only the whole's "
    "parts") {
    const auto adapter = chat_template_adapter();
    const auto started = std::chrono::steady_clock::now();
    std::size_t prefixes = 0, turns_checked = 0;
    for (const RoundTripTurn& turn : shape_round_trips()) {
        if (!turn.error.empty()) continue;
        INFO(turn.template_name << " x " << turn.case_name
                                << "\nturn: " << Json(turn.completion).dump());
        const ParsedTurn whole = parse_turn(*adapter, turn.completion, turn.options);
        Json options = turn.options;
        options["partial"] = true;
        std::string first_problem;
        ParsedTurn before;
        for (std::size_t n = 0; n <= turn.completion.size(); ++n) {
            if (!utf8_boundary(turn.completion, n)) continue;
            ++prefixes;
            const ParsedTurn now = parse_turn(*adapter, turn.completion.substr(0, n), options);
            std::string problem = partial_inconsistency(now, whole);
            if (problem.empty()) problem = stream_regression(before, now);
            if (!problem.empty() && first_problem.empty())
                first_problem =
                    "prefix " + Json(turn.completion.substr(0, n)).dump() + ": " + problem;
            before = now;
        }
        ++turns_checked;
        const auto exception = partial_exceptions.find({turn.template_name, turn.case_name});
        if (exception == partial_exceptions.end()) {
            CHECK(first_problem == "");
        } else {
            INFO("listed: " << exception->second);
            CHECK(first_problem != "");
        }
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::cout << "round trip by the oracle, partial: " << prefixes << " prefixes of "
              << turns_checked << " turns in " << seconds << " s\n";
}

TEST_CASE("round trip by the oracle: gpt-oss's call cut in its arguments streams as the call") {
    const auto adapter = chat_template_adapter();
    for (const RoundTripTurn& turn : shape_round_trips()) {
        if (turn.template_name != "openai-gpt-oss-120b" || turn.case_name != "one_call") continue;
        const std::string cut = turn.completion.substr(0, turn.completion.find("Par") + 3);
        REQUIRE(cut ==
                " to=functions.get_weather<|channel|>commentary json<|message|>{\"city\": "
                "\"Par");
        Json options = turn.options;
        options["partial"] = true;
        const ParsedTurn parsed = parse_turn(*adapter, cut, options);
        CHECK(parsed.calls.empty());
        CHECK(parsed.custom == Json::parse(R"({"incomplete": true, "unfinished_tool_call":
            {"name": "get_weather", "id": "", "arguments": "{\"city\": \"Par"}})"));
    }
}
