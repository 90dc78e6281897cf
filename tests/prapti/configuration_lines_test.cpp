// Configuration lines: where they are recognised, assignments and their literals, actions, errors.
#include <catch2/catch.hpp>

#include "prapti_fixture.hpp"

using namespace prapti_test;

namespace {
Json settings_of(const std::string& text) {
    return document(text)[0].value("configuration", Json::array());
}
}  // namespace

TEST_CASE("configuration lines: the forms that are read, and the text they leave") {
    const std::string text =
        "a\n"
        "% one = 1\n"
        "%two=2\n"
        ">%three = 3\n"
        "> > % four = 4\n"
        "   % five = 5\n"
        "    % six = 6\n"     // indented 4: text
        "text % seven = 7\n"  // not at the start: text
        "//% eight = 8\n"     // disabled: removed, ignored
        ">//%nine = 9\n"      // disabled in a block quote
        "> //% ten = 10\n"
        "b\r\n"
        "% eleven = 11\r\n";
    CHECK(document(text) == Json::parse(R"([
        {"role": "_head", "send": false, "at": "1:1",
         "text": "a\n    % six = 6\ntext % seven = 7\nb",
         "configuration": ["2:3 one = 1", "3:2 two = 2", "4:3 three = 3", "5:7 four = 4",
                           "6:6 five = 5", "13:3 eleven = 11"]}])"));
}

TEST_CASE("configuration lines: literals are JSON strings, numbers, booleans and lists") {
    CHECK(settings_of(R"(% s = "gpt-4"
% path = "C:\\Users\\Ross\\capture"
% escaped = "tab\there \"q\" \u00e9"
% i = -12
% f = 0.25
% e = 1e3
% t = true
% no = false
% stop = ["."]
% mixed = [1, "two", [true, 2.5], []]
% spaced   =    "x"   )") ==
          Json::array({R"(1:3 s = "gpt-4")", R"(2:3 path = "C:\\Users\\Ross\\capture")",
                       "3:3 escaped = \"tab\\there \\\"q\\\" \xC3\xA9\"", "4:3 i = -12",
                       "5:3 f = 0.25", "6:3 e = 1000.0", "7:3 t = true", "8:3 no = false",
                       R"(9:3 stop = ["."])", R"(10:3 mixed = [1,"two",[true,2.5],[]])",
                       R"(11:3 spaced = "x")"}));
}

TEST_CASE("configuration lines: actions, with Prapti's `!`, keep their arguments as written") {
    CHECK(settings_of("% plugins.load openai.chat\n"
                      "%responder.new default  openai.chat\n"
                      "% test.test\n"
                      "% !test.test foo bar baz 1\n"
                      "%! test.test foo bar baz 2\n"
                      "% ! test.test foo bar baz 3\n"
                      "%!plugins.list\n") ==
          Json::array({"1:3 plugins.load openai.chat", "2:2 responder.new default  openai.chat",
                       "3:3 test.test ", "4:4 !test.test foo bar baz 1",
                       "5:4 !test.test foo bar baz 2", "6:5 !test.test foo bar baz 3",
                       "7:3 !plugins.list "}));
}

TEST_CASE("configuration lines: errors name file:line:col") {
    CHECK(error_of("x\n%\n") ==
          "ValueError: doc.md:2:2: a configuration line needs a name after '%' (`% name = value` "
          "or `% action arguments`); write text without a leading '%'");
    CHECK(error_of("% = 3") ==
          "ValueError: doc.md:1:3: a configuration line needs a name after '%' (`% name = value` "
          "or `% action arguments`); write text without a leading '%'");
    CHECK(error_of("%% multi\n") ==
          "ValueError: doc.md:1:2: multi-line configuration lines (%%) are not supported");
    CHECK(error_of("% model =\n") == "ValueError: doc.md:1:10: 'model =' needs a value");
    CHECK(error_of("% model = gpt-4") ==
          "ValueError: doc.md:1:11: the value of 'model' is not a literal (a JSON string, "
          "number, boolean or list): invalid JSON: syntax error while parsing value - invalid "
          "literal");
    CHECK(error_of("% x = {\"a\": 1}") ==
          "ValueError: doc.md:1:7: the value of 'x' holds an object: a configuration value is a "
          "string, a number, a boolean or a list");
    CHECK(error_of("% x = [1, null]") ==
          "ValueError: doc.md:1:7: the value of 'x' holds null: a configuration value is a "
          "string, a number, a boolean or a list");
    CHECK(error_of("% f(x)") ==
          "ValueError: doc.md:1:4: unexpected '(' after 'f' (`% name = value` or `% action "
          "arguments`)");
    CHECK(error_of("### @user:\n\n  > % a = 1 2") ==
          "ValueError: doc.md:3:13: the value of 'a' is not a literal (a JSON string, number, "
          "boolean or list): invalid JSON: syntax error while parsing value - unexpected number "
          "literal; expected end of input");
    // A hidden message's lines are read, so its errors are errors.
    CHECK(error_of("### @_aside:\n% = 1").rfind("ValueError: doc.md:2:3: ", 0) == 0);
}

TEST_CASE("configuration lines: a literal nested deeper than the limits policy is LimitExceeded") {
    const std::string deep = "% x = " + std::string(600, '[') + std::string(600, ']');
    CHECK(error_of(deep) ==
          "LimitExceeded: doc.md:1:519: the value of 'x': JSON nested deeper "
          "than 512 levels (max_depth)");
}
