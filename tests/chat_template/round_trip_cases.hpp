#pragma once
// The round-trip cases over the corpus templates, rendered by the oracle (Python Jinja2 set up as
// transformers' apply_chat_template, render_turns_with_oracle.py): a user question and an
// assistant message; the oracle renders the prompt (the question, add_generation_prompt) and the
// whole conversation (with the assistant's turn). The turn a model would write is what the whole
// conversation renders after what it shares with the prompt (the prefill); from_wire, given the
// prefill as its prompt, must read the message back.
//
// Shared by the round-trip table (round_trip_oracle_test.cpp), the generated conversations
// (conversation_generator_test.cpp) and the grammar's acceptance test.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cmfpipe/json.hpp"

namespace cmfpipe::testing {

struct RoundTripCall {
    std::string id;  // "" where the case gives none
    std::string name;
    Json arguments;  // an object
};

// An assistant message as a template receives it (transformers' reasoning_content, content,
// tool_calls).
struct RoundTripMessage {
    std::optional<std::string> reasoning;
    std::string text;
    std::vector<RoundTripCall> calls;
};

// One conversation to render: the user's question, then the assistant's message.
struct RoundTripCase {
    std::string name;  // "one_call", "two_calls", "reasoning_text_call", "generated_N"
    std::string question;
    Json tools;  // OpenAI function tools, as the template receives them
    RoundTripMessage assistant;
};

// One case rendered by the oracle with one corpus template.
struct RoundTripTurn {
    std::string template_name;  // the corpus file's stem
    std::string case_name;
    Json tools;
    RoundTripMessage expected;  // the case's assistant message
    std::string prompt;         // the question with the generation prompt
    std::string prefill;        // what the prompt and the whole conversation share (cut back
                                // to a space or '>' where the prompt is not all shared)
    std::string completion;     // the whole conversation after the prefill: the assistant turn
    std::string error;          // where the template raised: "Type: message" (nothing rendered)
    Json options;               // from_wire's: template, variables, tools, prompt = prefill
};

// The three shapes of the table: one call; two parallel calls; reasoning, text and a call.
std::vector<RoundTripCase> round_trip_shapes();

// The corpus's template names, sorted (the test is skipped where the corpus is absent).
std::vector<std::string> round_trip_template_names();

// Every corpus template x every case, in that order, rendered by the oracle in one run (the test
// exits 77, loudly, where Python Jinja2 is absent).
std::vector<RoundTripTurn> render_round_trips(const std::vector<RoundTripCase>& cases);

// The shapes over the corpus (42 x 3), rendered once per process.
const std::vector<RoundTripTurn>& shape_round_trips();

// The generated conversations (conversation_generator.hpp, generated_seed) over the corpus,
// rendered once per process.
const std::vector<RoundTripTurn>& generated_round_trips();
inline constexpr std::uint32_t generated_seed = 28;
inline constexpr std::size_t generated_count = 24;

}  // namespace cmfpipe::testing
