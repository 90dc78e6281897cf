// The round-trip cases rendered by the oracle (see round_trip_cases.hpp).
#include "round_trip_cases.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <iostream>

#include "chat_template_support.hpp"
#include "conversation_generator.hpp"
#include "support/process.hpp"
#include "support/scratch.hpp"

namespace cmfpipe::testing {
namespace {

const Json round_trip_tools = parse_json(R"([
  {"type": "function", "function": {"name": "get_weather", "description": "The weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"},
      "days": {"type": "integer"}}, "required": ["city"]}}},
  {"type": "function", "function": {"name": "get_time", "description": "The time in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
      "required": ["city"]}}}])",
                                         "round-trip tools");

// Mistral's templates ask for ids of nine alphanumerics.
RoundTripCall weather_call() {
    return {"abc123XYZ", "get_weather", Json{{"city", "Paris"}, {"days", 2}}};
}

// The variables every render and parse share; a template that reads more names them here.
Json template_variables(const std::string& name, const Json& tools) {
    Json variables = {{"bos_token", ""}, {"eos_token", ""}, {"enable_thinking", true}};
    if (name == "fireworks-ai-llama-3-firefunction-v2") {
        variables["functions"] = tools.dump(2);
        variables["datetime"] = "Jul 26 2024 00:00:00 GMT";
    }
    return variables;
}

// The message as transformers' apply_chat_template receives it (hf_messages.cpp's mapping).
Json hf_assistant(const RoundTripMessage& message) {
    Json out = {{"role", "assistant"}, {"content", message.text}};
    if (message.reasoning) out["reasoning_content"] = *message.reasoning;
    Json calls = Json::array();
    for (const RoundTripCall& call : message.calls) {
        Json hf = Json::object();
        if (!call.id.empty()) hf["id"] = call.id;
        hf["type"] = "function";
        hf["function"] = {{"name", call.name}, {"arguments", call.arguments}};
        calls.push_back(std::move(hf));
    }
    if (!calls.empty()) out["tool_calls"] = std::move(calls);
    return out;
}

Json render_variables(const std::string& name, const RoundTripCase& c, bool with_turn) {
    Json variables = template_variables(name, c.tools);
    Json messages = Json::array({Json{{"role", "user"}, {"content", c.question}}});
    if (with_turn) messages.push_back(hf_assistant(c.assistant));
    variables["messages"] = std::move(messages);
    if (!c.tools.empty()) variables["tools"] = c.tools;
    variables["add_generation_prompt"] = !with_turn;
    return variables;
}

// from_wire's options for a turn of `name`: the same variables, the tools, the prefill.
Json parse_options(const std::string& name, const std::string& text, const RoundTripCase& c,
                   const std::string& prefill) {
    Json variables = template_variables(name, c.tools);
    Json options = {{"bos_token", ""}, {"eos_token", ""}, {"enable_thinking", true}};
    Json kwargs = Json::object();
    for (const auto& [key, value] : variables.items())
        if (!options.contains(key)) kwargs[key] = value;
    if (!kwargs.empty()) options["chat_template_kwargs"] = std::move(kwargs);
    options = prompt_options(options, text, name + ".jinja");
    options["tools"] = c.tools;
    options["prompt"] = prefill;
    return options;
}

// The oracle's renders of `requests` ([{template, variables}]), in order.
Json oracle_renders(const Json& requests) {
    const Scratch scratch;
    const std::string in = scratch.write("in.json", requests.dump());
    const std::filesystem::path shared = corpus_root().parent_path();
    const auto result =
        run_shell("python3 " +
                  shell_quote((chat_template_test_dir / "render_turns_with_oracle.py").string()) +
                  " " + shell_quote(shared.string()) + " " + shell_quote(in) + " " +
                  shell_quote(scratch.path("out.json").string()));
    if (result.exit_code == 77) {
        std::cerr << "\n*** SKIPPED: the oracle cannot run here: " << result.err << " ***\n";
        std::exit(77);
    }
    if (result.exit_code != 0) FAIL("render_turns_with_oracle.py failed: " << result.err);
    return parse_json(slurp(scratch.path("out.json")), "oracle renders");
}

// Where the prefill ends: after all the prompt where the whole conversation begins with it;
// else (the generation prompt opens what the turn does not have, e.g. <think> where the message
// has no reasoning) at the last space or '>' of what they share, so the turn does not begin
// inside a marker ("...Assistant\n<" + "TOOLCALL>" would).
std::size_t prefill_end(const std::string& prompt, const std::string& full, std::size_t shared) {
    if (shared == prompt.size()) return shared;
    while (shared > 0) {
        const char c = full[shared - 1];
        if (c == '>' || c == ' ' || c == '\n' || c == '\t' || c == '\r') break;
        --shared;
    }
    return shared;
}

}  // namespace

std::vector<RoundTripCase> round_trip_shapes() {
    const std::string question = "What is the weather in Paris?";
    RoundTripCase one{"one_call", question, round_trip_tools, {std::nullopt, "", {weather_call()}}};
    RoundTripCase two{
        "two_calls",
        "What are the weather in Paris and the time in Tokyo?",
        round_trip_tools,
        {std::nullopt, "", {weather_call(), {"def456UVW", "get_time", {{"city", "Tokyo"}}}}}};
    RoundTripCase all{"reasoning_text_call",
                      question,
                      round_trip_tools,
                      {"The user wants Paris's weather, so I call the tool.",
                       "Let me look that up.",
                       {weather_call()}}};
    return {one, two, all};
}

std::vector<std::string> round_trip_template_names() {
    std::vector<std::string> names;
    for (const auto& entry :
         std::filesystem::directory_iterator(require_corpus("chat-templates") / "templates"))
        if (entry.path().extension() == ".jinja") names.push_back(entry.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}

std::vector<RoundTripTurn> render_round_trips(const std::vector<RoundTripCase>& cases) {
    const std::vector<std::string> names = round_trip_template_names();
    Json requests = Json::array();
    for (const std::string& name : names) {
        for (const RoundTripCase& c : cases) {
            for (const bool with_turn : {false, true})
                requests.push_back(
                    {{"template", name}, {"variables", render_variables(name, c, with_turn)}});
        }
    }
    const Json renders = oracle_renders(requests);
    REQUIRE(renders.size() == requests.size());

    std::vector<RoundTripTurn> turns;
    std::size_t at = 0;
    for (const std::string& name : names) {
        const std::string text = corpus_template(name);
        for (const RoundTripCase& c : cases) {
            const Json& prompt = renders[at++];
            const Json& whole = renders[at++];
            RoundTripTurn turn{name, c.name, c.tools, c.assistant, "", "", "", "", Json()};
            if (whole.contains("error") || prompt.contains("error")) {
                turn.error = (whole.contains("error") ? whole : prompt)["error"].get<std::string>();
            } else {
                turn.prompt = prompt["text"].get<std::string>();
                const std::string full = whole["text"].get<std::string>();
                const std::size_t shared = static_cast<std::size_t>(
                    std::mismatch(turn.prompt.begin(),
                                  turn.prompt.begin() + std::min(turn.prompt.size(), full.size()),
                                  full.begin())
                        .first -
                    turn.prompt.begin());
                turn.prefill = full.substr(0, prefill_end(turn.prompt, full, shared));
                turn.completion = full.substr(turn.prefill.size());
            }
            turn.options = parse_options(name, text, c, turn.prefill);
            turns.push_back(std::move(turn));
        }
    }
    return turns;
}

namespace {

// With CMFPIPE_ROUND_TRIP_DUMP=DIR, the turns are also written to DIR/NAME.json (to look at a
// failure, or to feed another tool): [{template, case, prompt, prefill, completion, error,
// expected}].
const std::vector<RoundTripTurn>& dumped(const std::vector<RoundTripTurn>& turns,
                                         const std::string& name) {
    const char* dir = std::getenv("CMFPIPE_ROUND_TRIP_DUMP");
    if (!dir || !*dir) return turns;
    Json out = Json::array();
    for (const RoundTripTurn& turn : turns) {
        Json calls = Json::array();
        for (const RoundTripCall& call : turn.expected.calls)
            calls.push_back({{"id", call.id}, {"name", call.name}, {"arguments", call.arguments}});
        out.push_back({{"template", turn.template_name},
                       {"case", turn.case_name},
                       {"prompt", turn.prompt},
                       {"prefill", turn.prefill},
                       {"completion", turn.completion},
                       {"error", turn.error},
                       {"expected",
                        {{"reasoning",
                          turn.expected.reasoning ? Json(*turn.expected.reasoning) : Json(nullptr)},
                         {"text", turn.expected.text},
                         {"calls", calls}}}});
    }
    std::filesystem::create_directories(dir);
    std::ofstream(std::filesystem::path(dir) / (name + ".json"), std::ios::binary) << out.dump(1);
    return turns;
}

}  // namespace

const std::vector<RoundTripTurn>& shape_round_trips() {
    static const std::vector<RoundTripTurn> turns = render_round_trips(round_trip_shapes());
    return dumped(turns, "shapes");
}

const std::vector<RoundTripTurn>& generated_round_trips() {
    static const std::vector<RoundTripTurn> turns =
        render_round_trips(generate_conversations(generated_seed, generated_count));
    return dumped(turns, "generated");
}

}  // namespace cmfpipe::testing
