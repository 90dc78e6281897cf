// Message headings, the hidden `_head`, hidden and disabled sections, unknown roles, names.
#include <catch2/catch.hpp>

#include "prapti_fixture.hpp"

using namespace prapti_test;

TEST_CASE("headings: only `### @role:` and `### @role/name:` start messages") {
    const std::string text =
        "### @user:\n"
        "## @assistant:\n"           // level 2: text
        "#### @assistant:\n"         // level 4: text
        "### assistant:\n"           // no @
        "### @assistant: hello\n"    // more after the colon
        "###@assistant:\n"           // no space after ###
        "    ### @assistant:\n"      // indented 4: a code block in CommonMark
        "### @assistant/:\n"         // an empty name
        "### @assistant/Ann Lee:\n"  // a name with a space
        "### @9lives:\n"             // a role starts with a letter or _
        "> ### @assistant:\n"        // in a block quote
        "end";
    CHECK(conversation(text) ==
          Json::array({{{"role", "user"}, {"text", text.substr(text.find('\n') + 1)}}}));
    CHECK(conversation("   ### @user:\t \na\n###\t@assistant/Bot_2-b:\nb\r\n### @system:\r\nc") ==
          Json::parse(R"([{"role": "user", "text": "a"},
                          {"role": "assistant", "text": "b", "name": "Bot_2-b"},
                          {"role": "system", "text": "c"}])"));
}

TEST_CASE("headings: what comes before the first heading is the hidden _head") {
    const std::string text = "Notes for me.\n% model = \"m\"\n### @user:\nhi\n";
    CHECK(conversation(text) == Json::parse(R"([{"role": "user", "text": "hi"}])"));
    CHECK(document(text) == Json::parse(R"([
        {"role": "_head", "send": false, "at": "1:1", "text": "Notes for me.",
         "configuration": ["2:3 model = \"m\""]},
        {"role": "user", "send": true, "at": "3:6", "text": "hi"}])"));
    // A document without headings is its _head alone.
    CHECK(document("") ==
          Json::parse(R"([{"role": "_head", "send": false, "at": "1:1", "text": ""}])"));
}

TEST_CASE("headings: hidden roles are not sent, their configuration lines are read") {
    const std::string text = "### @_notes/me:\nsecret\n% seed = 7\n### @user:\nq";
    CHECK(conversation(text) == Json::parse(R"([{"role": "user", "text": "q"}])"));
    CHECK(document(text) == Json::parse(R"([
        {"role": "_head", "send": false, "at": "1:1", "text": ""},
        {"role": "_notes", "send": false, "at": "1:6", "text": "secret", "name": "me",
         "configuration": ["3:3 seed = 7"]},
        {"role": "user", "send": true, "at": "4:6", "text": "q"}])"));
}

TEST_CASE("headings: a disabled message is dropped whole, configuration and all") {
    const std::string text =
        "### @user:\na\n### //@assistant:\nb\n% model = \"no\"\n% = not even read\n"
        "### //@_hidden:\n% seed = 1\n### @user:\nc";
    CHECK(document(text) == Json::parse(R"([
        {"role": "_head", "send": false, "at": "1:1", "text": ""},
        {"role": "user", "send": true, "at": "1:6", "text": "a"},
        {"role": "user", "send": true, "at": "9:6", "text": "c"}])"));
    // A disabled message still has fences: a heading inside one is no heading.
    CHECK(conversation("### //@user:\n```\n### @user:\n```\n### @user:\nd") ==
          Json::parse(R"([{"role": "user", "text": "d"}])"));
}

TEST_CASE("headings: a message without text is not sent") {
    const std::string text = "### @user:\nq\n### @assistant:\n% seed = 1\n\n### @user:\n\n";
    CHECK(conversation(text) == Json::parse(R"([{"role": "user", "text": "q"}])"));
    CHECK(document(text) == Json::parse(R"([
        {"role": "_head", "send": false, "at": "1:1", "text": ""},
        {"role": "user", "send": true, "at": "1:6", "text": "q"},
        {"role": "assistant", "send": false, "at": "3:6", "text": "", "configuration": ["4:3 seed = 1"]},
        {"role": "user", "send": false, "at": "6:6", "text": ""}])"));
}

TEST_CASE(
    "headings: a role CMF does not have is an error in the conversation, noted in the document") {
    const std::string text = "### @user:\na\n\n### @prompt:\nOnce upon a time";
    CHECK(error_of(text) ==
          "ValueError: doc.md:4:6: 'prompt' is not a role a model can be sent (system, developer, "
          "user, assistant, tool); a hidden role starts with '_'");
    CHECK(document(text) == Json::parse(R"([
        {"role": "_head", "send": false, "at": "1:1", "text": ""},
        {"role": "user", "send": true, "at": "1:6", "text": "a"},
        {"role": "prompt", "send": false, "at": "4:6", "text": "Once upon a time"}])"));
    CHECK(conversation("### @developer:\nd\n### @tool:\nt") ==
          Json::parse(R"([{"role": "developer", "text": "d"}, {"role": "tool", "text": "t"}])"));
}

TEST_CASE("headings: the CMF form of a named message") {
    const auto messages = parse("### @user/Ross:\nHello");
    REQUIRE(messages.size() == 1);
    CHECK(cmfpipe::cmf::message_to_json(messages[0]) == Json::parse(R"({
        "schema_version": "2.0", "role": "user",
        "content": [{"content_type": "text", "text": "Hello"}], "channel": null,
        "extensions": {"custom": {"metadata": {"name": "Ross"}}}})"));
}

TEST_CASE("text: blank lines at a message's ends go, everything between stays as written") {
    CHECK(conversation("### @user:\n\n \t\n  indented\n\n\nlast  \n\n  \n### @user:\nx\r\ny\r\n") ==
          Json::parse(R"([{"role": "user", "text": "  indented\n\n\nlast  "},
                          {"role": "user", "text": "x\r\ny"}])"));
}
