// §6.6 content rules and the edges of §6.4 the vectors do not show: blank-line trimming, empty
// messages, inline images, CRLF, text before the first marker, empty input.
#include <catch2/catch.hpp>

#include "parser_fixture.hpp"

using namespace prompty_parser_test;

namespace {

Json parsed(const std::string& text) {
    cmfpipe::RequestContext request;
    return to_vector_form(parser().parse(text, strict_off, request));
}

}  // namespace

TEST_CASE("leading and trailing blank lines are trimmed, internal ones and spaces kept",
          "[prompty_parser][content]") {
    CHECK(parsed("user:\n\n\n  a\n\n\n  b  \n\n\n") ==
          Json::array({text_message("user", "  a\n\n\n  b  ")}));
    CHECK(parsed("user:\r\n\r\nHi\r\n\r\nthere\r\n\r\nassistant:\r\nHo\r\n") ==
          Json::array({text_message("user", "Hi\r\n\r\nthere"), text_message("assistant", "Ho")}));
}

TEST_CASE("empty messages are kept with an empty text part", "[prompty_parser][content]") {
    CHECK(parsed("system:\nuser:\n\n\nassistant:") ==
          Json::array({text_message("system", ""), text_message("user", ""),
                       text_message("assistant", "")}));
}

TEST_CASE("inline markdown images stay text", "[prompty_parser][content]") {
    CHECK(parsed("user:\n![a](http://x/a.png)\n\n![b](data:image/png;base64,AAAA)") ==
          Json::array(
              {text_message("user", "![a](http://x/a.png)\n\n![b](data:image/png;base64,AAAA)")}));
}

TEST_CASE("text before the first marker is a system message unless it is only whitespace",
          "[prompty_parser][content]") {
    CHECK(parsed("Preamble\n\nuser:\nHi") ==
          Json::array({text_message("system", "Preamble"), text_message("user", "Hi")}));
    CHECK(parsed("\n  \n\t\nuser:\nHi") == Json::array({text_message("user", "Hi")}));
}

TEST_CASE("text with no marker is one system message, even when empty",
          "[prompty_parser][content]") {
    CHECK(parsed("") == Json::array({text_message("system", "")}));
    CHECK(parsed("\n\nplain\n\n") == Json::array({text_message("system", "plain")}));
}

TEST_CASE("a marker on the last line without a newline makes an empty message",
          "[prompty_parser][content]") {
    CHECK(parsed("user:\nHi\nassistant:") ==
          Json::array({text_message("user", "Hi"), text_message("assistant", "")}));
}
