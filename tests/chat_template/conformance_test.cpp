// Conformance: the chat_template adapter's to_wire against Python Jinja2 set up as transformers'
// apply_chat_template (../shared/tools/jinja-oracle), over the 42 chat templates of the corpus:
//   - the corpus's own conversations simple, system and tool_use_objargs (system, user, assistant
//     text, assistant tool calls, tool results; tools listed; the generation prompt), turned into
//     CMF here, against the goldens the corpus records (corpus/chat-templates/goldens);
//   - the 8 conversations of conversations.json (with and without tools, with and without the
//     generation prompt, thinking on and off), rendered by the oracle in this run
//     (render_with_oracle.py; skipped, loudly, where Python Jinja2 is absent).
// A .txt must match byte for byte; where Python raised (.error), to_wire must raise a ValueError
// whose message starts with the same "Type: message".
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <regex>

#include "chat_template_support.hpp"
#include "support/process.hpp"
#include "support/scratch.hpp"

namespace fs = std::filesystem;
using cmfpipe::Json;
using namespace cmfpipe::testing;

namespace {

struct Case {
    std::string tpl, conversation;
    Json cmf;  // {messages (CMF JSON), agent, options}
    fs::path golden;
    bool expect_error = false;
};

std::vector<std::string> corpus_template_names() {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(require_corpus("chat-templates") / "templates"))
        if (entry.path().extension() == ".jinja") names.push_back(entry.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}

Json text_part(const Json& text) {
    return Json{{"content_type", "text"}, {"text", text}};
}

// A corpus context (transformers' variables) as what the adapter is given: its messages as CMF,
// its tools as the agent's, the rest as options (the variables beyond the adapter's own options
// through chat_template_kwargs).
Json cmf_side(const Json& context) {
    Json messages = Json::array();
    for (const Json& m : context["messages"]) {
        Json parts = Json::array();
        if (m["role"] == "tool") {
            parts.push_back({{"content_type", "tool_result"},
                             {"content",
                              {{"tool_call_id", m["tool_call_id"]},
                               {"tool_name", m["name"]},
                               {"content", m["content"]}}}});
        } else {
            if (m["content"] != "") parts.push_back(text_part(m["content"]));
            for (const Json& call : m.value("tool_calls", Json::array())) {
                parts.push_back({{"content_type", "tool_call"},
                                 {"content",
                                  {{"tool_call_id", call["id"]},
                                   {"name", call["function"]["name"]},
                                   {"arguments", call["function"]["arguments"]}}}});
            }
        }
        messages.push_back({{"role", m["role"]}, {"content", std::move(parts)}});
    }
    Json agent = Json::object();
    Json options = Json::object(), kwargs = Json::object();
    for (const auto& [key, value] : context.items()) {
        if (key == "tools")
            agent["tools"] = value;
        else if (key == "add_generation_prompt" || key == "bos_token" || key == "eos_token")
            options[key] = value;
        else if (key != "messages")
            kwargs[key] = value;
    }
    if (!kwargs.empty()) options["chat_template_kwargs"] = std::move(kwargs);
    return Json{{"messages", std::move(messages)}, {"agent", agent}, {"options", options}};
}

// Each template with `conversations` (name -> CMF side), golden files in `goldens`.
std::vector<Case> cases(const std::vector<std::pair<std::string, Json>>& conversations,
                        const fs::path& goldens) {
    std::vector<Case> out;
    for (const std::string& tpl : corpus_template_names()) {
        for (const auto& [name, cmf] : conversations) {
            const std::string stem = tpl + "." + name;
            const bool error = fs::exists(goldens / (stem + ".error"));
            out.push_back({tpl, name, cmf, goldens / (stem + (error ? ".error" : ".txt")), error});
        }
    }
    return out;
}

std::vector<Case> corpus_cases() {
    const fs::path dir = require_corpus("chat-templates");
    std::vector<std::pair<std::string, Json>> conversations;
    // tool_use (arguments as JSON text) has no CMF form: CMF holds arguments as objects, as
    // tool_use_objargs gives them.
    for (const std::string name : {"simple", "system", "tool_use_objargs"}) {
        conversations.emplace_back(
            name,
            cmf_side(cmfpipe::parse_json(read_bytes(dir / "contexts" / (name + ".json")), name)));
    }
    return cases(conversations, dir / "goldens");
}

// The oracle's renders of conversations.json, made once per test process.
const fs::path& oracle_goldens() {
    static const Scratch scratch;
    static const bool rendered = [] {
        const fs::path shared = corpus_root().parent_path();
        const auto result = run_shell(
            "python3 " + shell_quote((chat_template_test_dir / "render_with_oracle.py").string()) +
            " " + shell_quote(shared.string()) + " " + shell_quote(scratch.dir.string()));
        if (result.exit_code == 77) {
            std::cerr << "\n*** SKIPPED: the oracle cannot run here: " << result.err << " ***\n";
            std::exit(77);
        }
        if (result.exit_code != 0) FAIL("render_with_oracle.py failed: " << result.err);
        return true;
    }();
    (void)rendered;
    return scratch.dir;
}

std::vector<Case> own_cases() {
    require_corpus("chat-templates");
    std::vector<std::pair<std::string, Json>> conversations;
    for (const Json& c : cmfpipe::testing::conversations())
        conversations.emplace_back(c["name"].get<std::string>(), c["cmf"]);
    return cases(conversations, oracle_goldens());
}

// The corpus goldens were rendered from llama.cpp's contexts, whose objects have their keys sorted:
// a tool call's function is {"arguments", "name"} there, {"name", "arguments"} as OpenAI and
// transformers users write it and as the adapter gives it. Only a template that prints the
// function object whole shows the order; its golden is compared with the keys put back in
// OpenAI's order, and must have had them sorted.
std::string golden_of(const Case& c) {
    std::string golden = read_bytes(c.golden);
    if (c.tpl == "mistralai-Mistral-Nemo-Instruct-2407" && c.conversation == "tool_use_objargs") {
        static const std::regex sorted_function(
            R"re(\{"arguments": (\{[^{}]*\}), "name": ("[^"]*"))re");
        std::string reordered =
            std::regex_replace(golden, sorted_function, R"({"name": $2, "arguments": $1)");
        REQUIRE(reordered != golden);
        return reordered;
    }
    return golden;
}

// "" when the case passes, else what differs.
std::string check(const cmfpipe::Adapter& adapter, const Case& c) {
    if (!fs::exists(c.golden)) return "no golden " + c.golden.string();
    const std::string golden = golden_of(c);
    std::string text, error_kind, error_message;
    try {
        const Json options =
            prompt_options(c.cmf["options"], corpus_template(c.tpl), c.tpl + ".jinja");
        text = adapter
                   .to_wire(cmfpipe::cmf::messages_from_json(c.cmf["messages"]), c.cmf["agent"],
                            options)
                   .get<std::string>();
    } catch (const cmfpipe::Error& e) {
        error_kind = e.kind();
        error_message = e.message();
    }
    if (c.expect_error) {
        const std::string want = golden.substr(0, golden.find('\n'));
        if (error_kind.empty()) return "expected the error '" + want + "', got:\n" + text;
        if (error_kind != "ValueError" || error_message.rfind(want, 0) != 0)
            return "error differs:\n  want: ValueError: " + want + "\n  got:  " + error_kind +
                   ": " + error_message;
        return "";
    }
    if (!error_kind.empty()) return "expected a prompt, got " + error_kind + ": " + error_message;
    if (text != golden) {
        std::size_t at = 0;
        while (at < text.size() && at < golden.size() && text[at] == golden[at]) ++at;
        const std::size_t from = at > 80 ? at - 80 : 0;
        return "prompt differs at byte " + std::to_string(at) +
               "\n  want: " + Json(golden.substr(from, 160)).dump() +
               "\n  got:  " + Json(text.substr(from, 160)).dump();
    }
    return "";
}

void check_all(const std::vector<Case>& all) {
    auto adapter = chat_template_adapter();
    for (const Case& c : all) {
        DYNAMIC_SECTION(c.tpl << " x " << c.conversation << (c.expect_error ? " (raises)" : "")) {
            const std::string problem = check(*adapter, c);
            INFO(problem);
            CHECK(problem.empty());
        }
    }
}

}  // namespace

TEST_CASE("chat_template conformance: the corpus's conversations x 42 templates, its goldens") {
    static const std::vector<Case> all = corpus_cases();
    REQUIRE(corpus_template_names().size() == 42);
    REQUIRE(all.size() == 126);
    check_all(all);
}

TEST_CASE("chat_template conformance: 8 conversations x 42 templates, rendered by the oracle") {
    static const std::vector<Case> all = own_cases();
    REQUIRE(cmfpipe::testing::conversations().size() == 8);
    REQUIRE(all.size() == 336);
    check_all(all);
}

TEST_CASE("chat_template conformance: summary count") {
    auto adapter = chat_template_adapter();
    for (const auto& [what, all] :
         {std::pair{"corpus goldens", corpus_cases()}, std::pair{"oracle renders", own_cases()}}) {
        std::size_t passed = 0, raised = 0;
        for (const Case& c : all) {
            const std::string problem = check(*adapter, c);
            if (problem.empty()) {
                ++passed;
                raised += c.expect_error ? 1 : 0;
            } else {
                std::cout << "FAIL " << c.tpl << " x " << c.conversation << ": " << problem << "\n";
            }
        }
        std::cout << "chat_template to_wire, " << what << ": " << passed << "/" << all.size()
                  << " (" << raised << " of them raise, as in Python)\n";
        CHECK(passed == all.size());
    }
}
