#pragma once
// One run of an output-parsing case with one template, as llama.cpp's harness runs it
// (output_parsing_conformance.cpp has the whole of its semantics):
//   1. the prompt: to_wire over the case's conversation, tools and options;
//   2. the parse: from_wire of the whole completion with the options of CT_CONTRACT.md (the
//      prompt among them); it must give one message, equal to the expectation; a case that is
//      not cut short must not end inside a tool call;
//   3. streaming: from_wire of every prefix, diffed and summed (msg_stream.hpp), the sum equal to
//      each parse and, at the end, to the expectation;
//   4. reconstruction, where the case expects it: the conversation with the expected message
//      (its calls' arguments as parsed) appended renders, without a generation prompt, to the
//      prompt and the completion, or to more that starts with them.
// The first thing that fails is the reason.
#include <optional>
#include <string>

#include "cmfpipe/adapter.hpp"
#include "parser_cases.hpp"

namespace cmfpipe::output_parsing {

struct CaseTemplate {
    std::string name;  // the file name, as records and the expected-failure list give it
    std::string path;  // where it was read (errors name it)
    std::string text;
};

struct RunSettings {
    bool streaming = true;
    std::string now = "2024-07-26T00:00:00";  // strftime_now, fixed: a run repeats exactly
};

struct RunOutcome {
    bool passed = false;
    std::string reason;  // what failed; empty when passed
};

RunOutcome run_case(const Adapter& adapter, const ParserCase& c, const CaseTemplate& t,
                    const RunSettings& settings = {});

// The options of each step, for the report and the tests: to_wire's, and from_wire's given the
// prompt.
Json prompt_options(const ParserCase& c, const CaseTemplate& t, const RunSettings& settings);
Json parse_options(const ParserCase& c, const CaseTemplate& t, const RunSettings& settings,
                   const std::string& prompt);

// Step 4 on its own: nothing when the conversation with the expected message (the arguments of
// `parsed`'s calls in place of the expected ones) renders to `prompt` + the completion or more;
// else what differs.
std::optional<std::string> reconstruction_difference(const Adapter& adapter, const ParserCase& c,
                                                     const CaseTemplate& t,
                                                     const RunSettings& settings,
                                                     const ChatMsg& parsed,
                                                     const std::string& prompt);

}  // namespace cmfpipe::output_parsing
