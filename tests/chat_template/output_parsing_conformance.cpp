// output_parsing_conformance: llama.cpp's output-parsing cases
// (corpus/output-parsing/parser-cases.json) through the chat_template adapter, to_wire for the
// prompt and from_wire for the parse, judged as llama.cpp's harness judges them.
//
// The harness is tests/test-chat.cpp of ggml-org/llama.cpp at commit 1425386fd996 (peg_tester,
// test_peg_parser, test_template_output_peg_parsers, test_lfm2_parser); read for its meaning,
// nothing of it copied. What it does, in our words, and how this runner follows it:
//
// Defaults. A case is built from the defaults and the builder calls the case file keeps as
// "opts": add_generation_prompt true, enable_thinking true, parallel_tool_calls false,
// reasoning_format NONE, tool_choice AUTO, no tools, and the conversation one user message,
// "Hey there!" (message_user). llama.cpp loads the template without a model, so bos_token and
// eos_token are defined and empty. The expectation's role is assistant.
//
// The prompt and what is parsed. The template is rendered with the conversation, the tools,
// enable_thinking and add_generation_prompt. The parser is built for those inputs and parses the
// generation prompt followed by the completion, so the expected message holds what the
// generation prompt leaves open: with reasoning_format NONE, a reasoning start the generation
// prompt wrote (Qwen3.5's "<think>\n") is part of the content ("<think>\nI'm\nthinking\n</think>
// ..."), while markers the format always removes stay removed (gpt-oss's "<|start|>assistant
// <|channel|>final<|message|>", Command R7B's response markers). Here the prompt is to_wire's,
// and from_wire gets it as the option `prompt` (CT_CONTRACT.md).
//
// reasoning_format. NONE: nothing is taken out as reasoning; it stays in the content with its
// markers. AUTO and DEEPSEEK: the reasoning is extracted to reasoning_content; the output parsers
// these cases test treat the two alike (both mean "extract").
//
// enable_thinking: a template variable only. It changes the generation prompt (a reasoning block
// opened, closed empty, or neither), and that is how it reaches the parse.
//
// parallel_tool_calls false: at most one call is parsed. tool_choice REQUIRED: the grammar
// demands a call; the parse of the cases that set it is what AUTO would give, so it is not
// passed on. json_schema: the content is a JSON value, optionally in a ```json fence that is
// removed; the schema's grammar is not ours to check. The harness also checks the grammar it
// builds (lazy triggers, the constrained text); cmfpipe builds no grammar, so those checks have
// no counterpart here.
//
// messages + continue_final_message (always with add_generation_prompt false). The final message
// is not rendered by the template: the conversation before it is rendered with the generation
// prompt, which is then cut where it opens the reasoning and followed by the reasoning start
// marker and the message's reasoning_content; CONTENT adds the reasoning end marker and the
// content. The parser reads that extended generation prompt with the completion, so the expected
// message is the prefilled part plus what the completion adds (reasoning "I'm" + " thinking"
// gives "I'm thinking"; content "Hello, " + "world!" gives "Hello, world!"). A template without
// reasoning markers gets the content only, and the expectation has no reasoning. Here to_wire's
// continue_final_message "content" / "reasoning_content" builds that prompt
// (plugins/chat_template/continuation.hpp) and from_wire reads the continued part from it.
//
// Comparison (assert_msg_equals, whitespace differences ignored). content and reasoning_content
// equal after stripping leading and trailing whitespace; as many tool calls; each call's name
// equal, its arguments equal once both sides are renormalized (parsed and written compact; text
// that is not JSON becomes "" on either side, so a call cut short compares by name and id only,
// unless one side's text happens to be valid JSON), its id equal. Here a CMF message becomes
// those fields: text parts joined, thinking parts joined, a call per tool_call part
// (namespace.name; arguments as compact JSON; tool_call_id), then custom.invalid_tool_arguments,
// then custom.unfinished_tool_call (the raw text so far) as the last call.
//
// Streaming and partial parses. The completion is parsed cut after every byte (never inside a
// UTF-8 character), as partial text except the whole completion of a case that is not partial.
// Each parse is diffed against the previous one (text may only grow, a tail given too early may
// be taken back, calls may not disappear, a call's name may only appear or grow) and the diffs
// are summed; the sum must equal every parse and, at the end, the expectation. A case that is not
// partial must also parse whole, without an unfinished call, to the expectation. is_partial: the
// whole completion is itself cut short (it ends inside a call); only the sum is compared. Here:
// from_wire has no partial flag (a cut completion is what it is); the whole completion is parsed
// first, then the prefixes; an unfinished call's arguments are the raw text and grow as such,
// and when the call finishes they are taken whole (llama.cpp writes JSON that grows instead).
// --no-streaming leaves the prefixes out, for looking at one failure.
//
// expect_reconstruction (never with is_partial): the expected message, with its calls' arguments
// replaced by the parsed ones (their JSON text as written), is appended to the conversation and
// the whole rendered without a generation prompt; that must give exactly the prompt followed by
// the completion, or a longer text that starts with it (the template may close the turn).
//
// Templates. "models/templates/X.jinja" is X.jinja, looked up in the corpus's
// chat-templates/templates and then in every --templates DIR. "loop: A, B, C" and "LFM2 family
// loop: A, B, C (test_lfm2_parser)" run the case once with each. A case whose template is in no
// folder is skipped, loudly (listed by template at the end), never passed.
//
// Usage: output_parsing_conformance [--cases FILE] [--templates DIR]... [--json FILE]
//          [--expected-failures FILE] [--case N] [--template NAME] [--no-streaming] [--verbose]
//          [--plugin-path DIR]...
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/core/registry.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/input_files.hpp"
#include "cmfpipe/json_parse.hpp"
#include "output_parsing/conformance_run.hpp"

namespace {

namespace fs = std::filesystem;
using namespace cmfpipe::output_parsing;

constexpr std::string_view usage = R"(usage: output_parsing_conformance [options]
  llama.cpp's output-parsing cases through the chat_template adapter (to_wire, from_wire).
  --cases FILE               the case file (default: CORPUS/output-parsing/parser-cases.json)
  --templates DIR            also look for templates in DIR (repeatable; after
                             CORPUS/chat-templates/templates)
  --json FILE                write one record per run: {index, template, status, reason}
  --expected-failures FILE   the runs that cannot pass: [{index, template, reason}]
  --case N, --template NAME  run only case N, only the template file NAME
  --no-streaming             leave out the every-prefix parses
  --verbose                  print the runs that passed too
  --plugin-path DIR          also load plugins from DIR (repeatable)
CORPUS is $CMFPIPE_CORPUS, else the corpus beside the source tree. The last line of the output
is "N passed, N failed, N skipped"; exit status 0 when every run that was not skipped passed or
failed as listed, 1 otherwise, 2 for a wrong command line, 77 when the corpus is absent.
)";

struct UsageError {
    std::string what;
};

fs::path corpus_root() {
    if (const char* env = std::getenv("CMFPIPE_CORPUS"); env && *env) return env;
    return CMFPIPE_CORPUS_DEFAULT;
}

std::size_t case_number(const std::string& text) {
    std::size_t used = 0;
    unsigned long n = 0;
    try {
        n = std::stoul(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != text.size()) throw UsageError{"--case wants a number, got " + text};
    return n;
}

}  // namespace

int main(int argc, char** argv) {
    ConformanceOptions options;
    std::vector<fs::path> plugin_dirs, extra_templates;
    std::optional<fs::path> cases, expected;
    try {
        const std::vector<std::string> args(argv + 1, argv + argc);
        for (std::size_t i = 0; i < args.size(); ++i) {
            const std::string& arg = args[i];
            auto value = [&]() -> const std::string& {
                if (i + 1 >= args.size()) throw UsageError{arg + " wants a value"};
                return args[++i];
            };
            if (arg == "--help" || arg == "-h") {
                std::cout << usage;
                return 0;
            } else if (arg == "--cases") {
                cases = value();
            } else if (arg == "--templates") {
                extra_templates.emplace_back(value());
                if (!fs::is_directory(extra_templates.back()))
                    throw UsageError{"--templates: not a folder: " +
                                     extra_templates.back().string()};
            } else if (arg == "--json") {
                options.json_out = value();
            } else if (arg == "--expected-failures") {
                expected = value();
            } else if (arg == "--case") {
                options.only_case = case_number(value());
            } else if (arg == "--template") {
                options.only_template = value();
            } else if (arg == "--no-streaming") {
                options.settings.streaming = false;
            } else if (arg == "--verbose") {
                options.verbose = true;
            } else if (arg == "--plugin-path") {
                plugin_dirs.emplace_back(value());
            } else {
                throw UsageError{"unknown argument " + arg};
            }
        }
    } catch (const UsageError& e) {
        std::cerr << "output_parsing_conformance: " << e.what << "\n" << usage;
        return 2;
    }

    const fs::path corpus = corpus_root();
    options.cases = cases ? *cases : corpus / "output-parsing" / "parser-cases.json";
    if (!fs::exists(options.cases)) {
        std::cout << "*** SKIPPED: the case file " << options.cases.string()
                  << " is absent (set CMFPIPE_CORPUS to the shared corpus) ***\n"
                  << "0 passed, 0 failed, 0 skipped\n";
        return 77;
    }
    if (const fs::path corpus_templates = corpus / "chat-templates" / "templates";
        fs::is_directory(corpus_templates))
        options.template_folders.push_back(corpus_templates);
    for (auto& folder : extra_templates) options.template_folders.push_back(std::move(folder));

    try {
        if (expected) {
            options.expected = ExpectedFailures(
                cmfpipe::parse_json(cmfpipe::read_text_file(*expected), expected->string()),
                expected->string());
            options.expected_name = expected->string();
        }
        cmfpipe::DiscoveryOptions discovery;
        discovery.directories = plugin_dirs;
        const cmfpipe::Registry registry = cmfpipe::Registry::discover(discovery);
        const auto adapter = registry.make_adapter("chat_template");
        return run_conformance(*adapter, options, std::cout);
    } catch (const cmfpipe::Error& e) {
        std::cout << "output_parsing_conformance: " << e.kind() << ": " << e.what() << "\n";
        return 1;
    }
}
