// The examples of the Prapti markdown spec (../shared/seeds/prapti-markdown-spec.md), verbatim,
// and its future directions, which the parser implements.
#include <catch2/catch.hpp>

#include "prapti_fixture.hpp"

using namespace prapti_test;

TEST_CASE("spec: message headings, a name, a hidden message and a disabled one") {
    const std::string text = R"(### @user/Ross:
Hello, how are you?

### @_aside:
This message will not be sent to the LLM.

Configuration lines in hidden messages will be processed. The following line will change the model.
% model = "gpt-4"

### //@user:
This message is disabled and will be ignored, including any inline configuration.
)";
    CHECK(conversation(text) == Json::parse(R"([
        {"role": "user", "text": "Hello, how are you?", "name": "Ross"}])"));
    CHECK(document(text) == Json::parse(R"([
        {"role": "_head", "send": false, "at": "1:1", "text": ""},
        {"role": "user", "send": true, "at": "1:6", "text": "Hello, how are you?", "name": "Ross"},
        {"role": "_aside", "send": false, "at": "4:6",
         "text": "This message will not be sent to the LLM.\n\nConfiguration lines in hidden messages will be processed. The following line will change the model.",
         "configuration": ["8:3 model = \"gpt-4\""]}])"));
}

TEST_CASE("spec: configuration lines, disabled, in a block quote, and an action") {
    const std::string text = R"(% temperature = 0.8

//% temperature = 0.6

> % temperature = 0.7

% plugins.load prapti.include
)";
    CHECK(conversation(text) == Json::array());
    CHECK(document(text) == Json::parse(R"([
        {"role": "_head", "send": false, "at": "1:1", "text": "",
         "configuration": ["1:3 temperature = 0.8", "5:5 temperature = 0.7",
                           "7:3 plugins.load prapti.include"]}])"));
}

TEST_CASE("spec, future: configuration lines in a fenced code block are text") {
    const std::string text =
        "### @user:\nSet it like this:\n\n```markdown\n% temperature = 0.8\n"
        "### @assistant:\n//% model = \"x\"\n```\n% temperature = 0.1\n";
    CHECK(document(text) == Json::parse(R"([
        {"role": "_head", "send": false, "at": "1:1", "text": ""},
        {"role": "user", "send": true, "at": "1:6",
         "text": "Set it like this:\n\n```markdown\n% temperature = 0.8\n### @assistant:\n//% model = \"x\"\n```",
         "configuration": ["9:3 temperature = 0.1"]}])"));
}

TEST_CASE("spec, future: tilde fences, longer fences and fences in block quotes") {
    CHECK(conversation("### @user:\n~~~\n% a = 1\n~~~\n````\n```\n% b = 2\n````\n") ==
          Json::parse(R"([{"role": "user",
            "text": "~~~\n% a = 1\n~~~\n````\n```\n% b = 2\n````"}])"));
    // A fence opened in a block quote ends with the quote; the line after it is read again.
    CHECK(document("> ```\n> % a = 1\n% b = 2\n") == Json::parse(R"([
        {"role": "_head", "send": false, "at": "1:1", "text": "> ```\n> % a = 1",
         "configuration": ["3:3 b = 2"]}])"));
    // An unclosed fence runs to the end of the document: the heading in it is text.
    CHECK(conversation("### @user:\n```\n### @assistant:\n% a = 1") ==
          Json::parse(R"([{"role": "user", "text": "```\n### @assistant:\n% a = 1"}])"));
}

TEST_CASE("spec, future: HTML comments are disabled spans") {
    const std::string text =
        "### @user:\nHello <!-- not sent --> there.\n<!--\n% model = \"x\"\n"
        "### @assistant:\nhidden\n-->\nStill the user.\n"
        "<!-- a line of comment only -->\n`<!-- code -->` stays\n";
    CHECK(document(text) == Json::parse(R"([
        {"role": "_head", "send": false, "at": "1:1", "text": ""},
        {"role": "user", "send": true, "at": "1:6",
         "text": "Hello  there.\nStill the user.\n`<!-- code -->` stays"}])"));
    // A `<!--` that nothing closes is text, not a comment to the end of the document.
    CHECK(conversation("### @user:\na <!-- b\n% c = 1\n") ==
          Json::parse(R"([{"role": "user", "text": "a <!-- b"}])"));
    // An empty comment, and one inside a fence (text).
    CHECK(conversation("### @user:\n<!---->% not a setting\n```\n<!-- kept -->\n```") ==
          Json::parse(R"([{"role": "user", "text": "% not a setting\n```\n<!-- kept -->\n```"}])"));
}

TEST_CASE("spec, future: roles are case-insensitive") {
    CHECK(conversation("### @User:\na\n### @ASSISTANT:\nb\n### @System/Bot:\nc\n### @_Aside:\nd") ==
          Json::parse(R"([{"role": "user", "text": "a"}, {"role": "assistant", "text": "b"},
                          {"role": "system", "text": "c", "name": "Bot"}])"));
}
