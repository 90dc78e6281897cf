// Every document of ../shared/corpus/prapti/repo_markdown (Prapti's own repository) parses; the
// starter, the test-actions document and the user guide (with its %include.code) exactly.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

#include "cmfpipe/input_files.hpp"
#include "prapti_fixture.hpp"
#include "support/corpus.hpp"

using namespace prapti_test;
namespace fs = std::filesystem;

namespace {

fs::path repo() {
    return cmfpipe::testing::require_corpus("prapti/repo_markdown");
}

Json options_for(const fs::path& file) {
    return {{"template_name", fs::relative(file, repo()).string()},
            {"file", file.string()},
            {"allowed_roots", {repo().string()}}};
}

Json document_of(const fs::path& relative) {
    const fs::path file = repo() / relative;
    return document(cmfpipe::read_text_file(file), options_for(file));
}

}  // namespace

TEST_CASE("corpus: every Prapti document parses, as a document and as a conversation") {
    std::set<std::string> parsed;
    for (const auto& entry : fs::recursive_directory_iterator(repo())) {
        if (!entry.is_regular_file() || entry.path().extension() != ".md") continue;
        const std::string name = fs::relative(entry.path(), repo()).string();
        INFO(name);
        const std::string text = cmfpipe::read_text_file(entry.path());
        CHECK_NOTHROW(document(text, options_for(entry.path())));
        // Only the koboldcpp responder's document has a role no chat model takes (`@prompt`).
        if (name == "prapti/plugins/endpoints/koboldcpp_text_responder.md") {
            CHECK(error_of(text, options_for(entry.path())) ==
                  "ValueError: " + name +
                      ":11:6: 'prompt' is not a role a model can be sent (system, developer, "
                      "user, assistant, tool); a hidden role starts with '_'");
        } else {
            CHECK_NOTHROW(conversation(text, options_for(entry.path())));
        }
        parsed.insert(name);
    }
    CHECK(parsed.size() == 17);
}

TEST_CASE("corpus: the starter file prapti/tool/default_start.md") {
    CHECK(document_of("prapti/tool/default_start.md") == Json::parse(R"([
        {"role": "_head", "send": false, "at": "1:1", "text": "",
         "configuration": ["1:3 temperature = 0.2", "2:3 model = \"gpt-3.5-turbo\""]},
        {"role": "system", "send": true, "at": "7:6",
         "text": "You are a helpful, supportive and familiar assistant. Be helpful. Avoid sounding over-eager or excited. DO NOT use exclamation marks (!). DO NOT give unsolicited advice or long screeds of unsolicited information. The user understands that you are here to help, there is no need to remind them. NEVER say \"If you have any questions or concerns, please let me know\" or similar phrases. Use markdown formatting in your responses where appropriate."},
        {"role": "user", "send": false, "at": "11:6", "text": ""}])"));
}

TEST_CASE("corpus: Prapti's test-actions document, `!` actions and the misspelt teest.test") {
    Json out = document_of("prapti/plugins/prapti_test_actions.md");
    REQUIRE(out.size() == 3);
    CHECK(out[0]["configuration"] ==
          Json::array({"1:2 plugins.load prapti.test.test_actions", "3:3 temperature = 0.2",
                       "4:3 model = \"gpt-3.5-turbo\""}));
    CHECK(out[2] == Json::parse(R"({"role": "user", "send": true, "at": "13:6",
        "text": "The following is ambiguous:",
        "configuration": ["15:3 test.test ", "16:4 !test.test foo bar baz 1",
                          "17:4 !test.test foo bar baz 2", "18:5 !test.test foo bar baz 3",
                          "20:3 teest.test ", "23:3 test ", "25:3 !plugins.list "]})"));
}

TEST_CASE("corpus: docs/user_guide.md with its %include.code files inlined") {
    const Json out = document_of("docs/user_guide.md");
    REQUIRE(out.size() == 10);
    const std::string user = out[3]["text"];
    // Each file as it is, in a fence longer than any run of backticks in it.
    auto block = [](const std::string& file, const std::string& fence) {
        std::string text = cmfpipe::read_text_file(repo() / file);
        if (!text.empty() && text.back() == '\n') text.pop_back();  // the fence takes its place
        return fence + "md\n" + text + "\n" + fence;
    };
    const std::string expected =
        "Hi, we're working on providing user documentation for Prapti. This document we're "
        "working on is called `user_guide.md`. I think our first order of business should be to "
        "determine what should go in this file.\nThe target audience is broad. I expect it will "
        "be looked at by people who are getting started, but it's probably not their first point "
        "of contact.\n\nIn order of user contact we already have the following other files:\n\n"
        "[README](../README.md) that the user will see when they visit our project page on "
        "GitHub.\n\n" +
        block("README.md", "````") +
        "\n\n[An introductory usage example](../start_here.md), that the user might look at "
        "after the README:\n\n" +
        block("start_here.md", "```") +
        "\n\nThen I'd expect that they'd look at the [user guide](user_guide.md) that we're "
        "working on right now.\n\nThen we have more specific or more technical content:\n\n" +
        block("docs/local_llms.md", "````") + "\n\n" + block("docs/editor_tweaks.md", "````") +
        "\n\n" + block("docs/config_files.md", "````") +
        "\n\nFinally, our formal markdown specification (for technical readers):\n\n" +
        block("docs/prapti_spec.md", "````") +
        "\n\nCan you start by suggesting what content we should put in the User Guide, if any?";
    CHECK(user == expected);
    // The conversation's fenced examples hold headings and settings that are text.
    CHECK(out[6]["text"].get<std::string>().find("```markdown\n### @_aside:\n") !=
          std::string::npos);
    CHECK(out[7]["configuration"] == Json::array({"174:3 responders.default.max_tokens = 900"}));
    CHECK(out[9] == Json::parse(R"({"role": "user", "send": false, "at": "208:6", "text": ""})"));
}
