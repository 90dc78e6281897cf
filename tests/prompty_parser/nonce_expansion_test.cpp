// §6.7 thread expansion and the media nonces: what replaces a rich input's token in the text.
#include <catch2/catch.hpp>

#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/errors.hpp"
#include "parser_fixture.hpp"

using namespace prompty_parser_test;
using Catch::Matchers::Message;
using cmfpipe::RichKind;

namespace {

const std::string history_token = "__PROMPTY_THREAD_a1b2c3d4e5f6a7b8_history__";
const std::string photo_token = "__PROMPTY_THREAD_0011223344556677_photo__";

const Json history = Json::array({
    {{"role", "user"}, {"content", Json::array({{{"kind", "text"}, {"value", "prev question"}}})}},
    {{"role", "assistant"}, {"content", "prev answer"}},
});

Json parse_with(const std::string& text, const std::map<std::string, cmfpipe::RichInput>& inputs) {
    cmfpipe::RequestContext request;
    request.rich_inputs = inputs;
    return to_vector_form(parser().parse(text, strict_off, request));
}

Json media(const char* kind, const char* type, const char* value, Json media_type = Json()) {
    return {{"kind", kind}, {"type", type}, {"value", value}, {"mediaType", media_type}};
}

}  // namespace

TEST_CASE("a thread splits its message, text before and after keep the containing role",
          "[prompty_parser][thread]") {
    const std::string text =
        "system:\nBe brief.\n\nuser:\nEarlier:\n" + history_token + "\n\nNow: hi\n";
    CHECK(parse_with(text, {{history_token, {"history", RichKind::thread, history}}}) ==
          Json::array({text_message("system", "Be brief."), text_message("user", "Earlier:"),
                       text_message("user", "prev question"),
                       text_message("assistant", "prev answer"), text_message("user", "Now: hi")}));
}

TEST_CASE("a thread alone in a message leaves no empty message behind",
          "[prompty_parser][thread]") {
    CHECK(parse_with("user:\n\n" + history_token + "\n\n",
                     {{history_token, {"history", RichKind::thread, history}}}) ==
          Json::array(
              {text_message("user", "prev question"), text_message("assistant", "prev answer")}));
    CHECK(parse_with("user:\n" + history_token,
                     {{history_token, {"history", RichKind::thread, Json::array()}}}) ==
          Json::array());
}

TEST_CASE("the same thread twice is expanded twice, and the marker metadata stays on the text",
          "[prompty_parser][thread]") {
    Json a = text_message("user", "A");
    a["metadata"] = {{"name", "Bob"}};
    Json b = text_message("user", "B");
    b["metadata"] = {{"name", "Bob"}};
    const Json one = Json::array({{{"role", "tool"}, {"content", "42"}}});
    CHECK(parse_with("user[name=Bob]:\nA " + history_token + " B " + history_token,
                     {{history_token, {"history", RichKind::thread, one}}}) ==
          Json::array({a, text_message("tool", "42"), b, text_message("tool", "42")}));
}

TEST_CASE("thread messages in CMF JSON are read as CMF", "[prompty_parser][thread]") {
    using namespace cmfpipe::cmf;
    const Json cmf_thread =
        messages_to_json({Message::text(Role::user, "q"), Message::text(Role::assistant, "a")});
    CHECK(parse_with("system:\nS\n" + history_token,
                     {{history_token, {"history", RichKind::thread, cmf_thread}}}) ==
          Json::array({text_message("system", "S"), text_message("user", "q"),
                       text_message("assistant", "a")}));
}

TEST_CASE("a value that is not a list of messages leaves the nonce as literal text",
          "[prompty_parser][thread]") {
    const std::string text = "user:\nSee " + history_token + " here";
    for (const Json& value : {Json("just a string"), Json{{"role", "user"}}, Json::array({1, 2}),
                              Json::array({{{"content", "no role"}}})}) {
        INFO("value: " << value.dump());
        CHECK(parse_with(text, {{history_token, {"history", RichKind::thread, value}}}) ==
              Json::array({text_message("user", "See " + history_token + " here")}));
    }
    // A token nobody registered is text too.
    CHECK(parse_with(text, {}) ==
          Json::array({text_message("user", "See " + history_token + " here")}));
}

TEST_CASE("a thread with a bad message is a ValueError naming the input and index",
          "[prompty_parser][thread]") {
    cmfpipe::RequestContext request;
    request.rich_inputs[history_token] = {
        "history", RichKind::thread,
        Json::array({{{"role", "user"}, {"content", "ok"}}, {{"role", "robot"}}})};
    CHECK_THROWS_MATCHES(parser().parse("user:\n" + history_token, strict_off, request),
                         cmfpipe::ValueError,
                         Message("inputs.history[1].role: unknown role 'robot' (system, developer, "
                                 "user, assistant, tool)"));
    request.rich_inputs[history_token].value =
        Json::array({{{"role", "user"}, {"content", Json::array({{{"kind", "video"}}})}}});
    CHECK_THROWS_MATCHES(parser().parse("user:\n" + history_token, strict_off, request),
                         cmfpipe::ValueError,
                         Message("inputs.history[0].content[0]: unknown content part kind 'video' "
                                 "(text, image, file, audio)"));
}

TEST_CASE("image, file and audio nonces become CMF media parts in place",
          "[prompty_parser][media]") {
    const std::string doc = "__PROMPTY_THREAD_8899aabbccddeeff_doc__";
    const std::string voice = "__PROMPTY_THREAD_ffeeddccbbaa9988_voice__";
    const std::string text = "system:\nYou see and hear.\n\nuser:\nLook:\n" + photo_token +
                             "\nRead " + doc + "\n" + voice + "\n";
    const Json got = parse_with(
        text,
        {{photo_token, {"photo", RichKind::image, "https://example.com/cat.png"}},
         {doc, {"doc", RichKind::file, {{"value", "JVBERi0x"}, {"mediaType", "application/pdf"}}}},
         {voice, {"voice", RichKind::audio, "data:audio/wav;base64,UklGRg=="}}});
    CHECK(got ==
          Json::array(
              {text_message("system", "You see and hear."),
               {{"role", "user"},
                {"content", Json::array({{{"kind", "text"}, {"value", "Look:"}},
                                         media("image", "url", "https://example.com/cat.png"),
                                         {{"kind", "text"}, {"value", "Read"}},
                                         media("file", "base64", "JVBERi0x", "application/pdf"),
                                         media("audio", "base64", "UklGRg==", "audio/wav")})}}}));
}

TEST_CASE("a media nonce alone makes a message with just that part", "[prompty_parser][media]") {
    CHECK(parse_with("user:\n" + photo_token,
                     {{photo_token, {"photo", RichKind::image, "iVBORw0KGgo="}}}) ==
          Json::array({{{"role", "user"},
                        {"content", Json::array({media("image", "base64", "iVBORw0KGgo=")})}}}));
}

TEST_CASE("a media value that cannot be a part is a ValueError naming the input",
          "[prompty_parser][media]") {
    cmfpipe::RequestContext request;
    request.rich_inputs[photo_token] = {"photo", RichKind::image, 42};
    CHECK_THROWS_MATCHES(
        parser().parse("user:\n" + photo_token, strict_off, request), cmfpipe::ValueError,
        Message("input 'photo' (kind image): the value must be a string (URL, data URL or base64) "
                "or an object, not number"));
}
