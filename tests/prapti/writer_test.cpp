// The "prapti" adapter: CMF messages written as Prapti markdown that reads back as they were.
#include <catch2/catch.hpp>

#include <random>

#include "cmfpipe/cmf/json.hpp"
#include "prapti_fixture.hpp"

using namespace prapti_test;
using namespace cmfpipe::cmf;

namespace {

const cmfpipe::Adapter& writer() {
    static const auto adapter = cmfpipe::testing::bundled_plugins().make_adapter("prapti");
    return *adapter;
}

std::string write(const std::vector<Message>& messages, Json options = Json::object()) {
    return writer().to_wire(messages, Json::object(), options).get<std::string>();
}

Message named(Message message, const std::string& name) {
    return message.with_custom(std::make_shared<const Json>(Json{{"metadata", {{"name", name}}}}));
}

std::string error_of_write(const std::vector<Message>& messages, Json options = Json::object()) {
    try {
        (void)write(messages, std::move(options));
    } catch (const cmfpipe::Error& e) {
        return std::string(e.kind()) + ": " + e.what();
    }
    return "";
}

// What a message's text reads as: no blank lines at its ends, no "\r" ending its last line.
std::string without_blank_ends(const std::string& text) {
    std::vector<std::string> lines;
    for (std::size_t begin = 0;;) {
        const std::size_t end = text.find('\n', begin);
        lines.push_back(
            text.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
        if (end == std::string::npos) break;
        begin = end + 1;
    }
    auto blank = [](const std::string& line) {
        return line.find_first_not_of(" \t\r") == std::string::npos;
    };
    std::size_t first = 0, last = lines.size();
    while (first < last && blank(lines[first])) ++first;
    while (last > first && blank(lines[last - 1])) --last;
    std::string out;
    for (std::size_t i = first; i < last; ++i) out += (i > first ? "\n" : "") + lines[i];
    if (!out.empty() && out.back() == '\r') out.pop_back();
    return out;
}

}  // namespace

TEST_CASE("writer: messages as sections, the next user turn at the end") {
    CHECK(write({Message::text(Role::system, "Be brief."),
                 named(Message::text(Role::user, "Hi"), "Ross"),
                 Message::text(Role::assistant, "Hello.\n\nHow can I help?")},
                {{"next_user", true}}) ==
          "### @system:\n\nBe brief.\n\n### @user/Ross:\n\nHi\n\n### @assistant:\n\nHello.\n\nHow "
          "can I help?\n\n### @user:\n\n");
    // After a document: on a line of its own, after a blank line.
    CHECK(write({Message::text(Role::assistant, "A")}, {{"after", "### @user:\nQ"}}) ==
          "\n\n### @assistant:\n\nA\n\n");
    CHECK(write({Message::text(Role::assistant, "A")}, {{"after", "### @user:\nQ\n"}}) ==
          "\n### @assistant:\n\nA\n\n");
    CHECK(write({Message::text(Role::assistant, "A")}, {{"after", "### @user:\nQ\n\n"}}) ==
          "### @assistant:\n\nA\n\n");
}

TEST_CASE("writer: thinking, tool calls and results as hidden sections a reader can read") {
    Message answer(Role::assistant,
                   {ContentPart::thinking("Weather needs a tool."), ContentPart::text("Checking."),
                    ContentPart::make(ToolCall{"call_1", "get_weather", {{"city", "Paris"}}, {}})});
    Message result(Role::tool,
                   {ContentPart::make(ToolResult{"call_1", "get_weather", "18C", false})});
    const std::string text = write({answer, result});
    CHECK(text ==
          "### @_reasoning:\n\nWeather needs a tool.\n\n### @assistant:\n\nChecking.\n\n"
          "### @_tool_call/get_weather:\n\n```json\n{\n  \"id\": \"call_1\",\n  \"arguments\": "
          "{\n    \"city\": \"Paris\"\n  }\n}\n```\n\n"
          "### @_tool_result/get_weather:\n\n```json\n{\n  \"id\": \"call_1\",\n  \"content\": "
          "\"18C\"\n}\n```\n\n");
    // It reads back: the assistant's text is sent, the rest is hidden.
    CHECK(conversation(text) == Json::parse(R"([{"role": "assistant", "text": "Checking."}])"));
    CHECK(document(text).size() == 5);
}

TEST_CASE("writer: lines that would read as markup are escaped with an empty comment") {
    const std::string answer =
        "### @user:\n% model = \"x\"\n> % t = 1\n//% off\nSee <!-- this --> and `<!-- code -->`.\n"
        "```\n% inside a closed fence\n### @user:\n```\n````\nunclosed fence";
    const std::string text = write({Message::text(Role::assistant, answer)});
    CHECK(text ==
          "### @assistant:\n\n<!---->### @user:\n<!---->% model = \"x\"\n<!---->> % t = 1\n"
          "<!---->//% off\nSee <<!---->!-- this --> and `<!-- code -->`.\n```\n% inside a closed "
          "fence\n### @user:\n```\n<!---->````\nunclosed fence\n\n");
    CHECK(conversation(text + "### @user:\nnext") ==
          Json::array(
              {{{"role", "assistant"}, {"text", answer}}, {{"role", "user"}, {"text", "next"}}}));
}

TEST_CASE("writer: any mix of markup reads back as written (2,000 generated texts)") {
    const std::vector<std::string> pieces = {"### @user:",
                                             "### //@user:",
                                             "% a = 1",
                                             "%",
                                             "%% x",
                                             "//% b",
                                             "> % c = 2",
                                             ">%d",
                                             "```",
                                             "````",
                                             "~~~",
                                             "> ```",
                                             "<!--",
                                             "-->",
                                             "<!-- x -->",
                                             "`<!--`",
                                             "``",
                                             "text",
                                             "",
                                             " ",
                                             "\r",
                                             "  indented",
                                             "%include \"x\"",
                                             "### @_h:"};
    std::mt19937 random(20240613);
    for (int round = 0; round < 2000; ++round) {
        std::string answer;
        const int lines = 1 + static_cast<int>(random() % 8);
        for (int l = 0; l < lines; ++l) {
            if (l > 0) answer += '\n';
            const int words = 1 + static_cast<int>(random() % 3);
            for (int w = 0; w < words; ++w) answer += pieces[random() % pieces.size()];
        }
        INFO(Json(answer).dump());
        const std::string text = write({Message::text(Role::assistant, answer)},
                                       {{"after", "### @user:\nq\n"}, {"next_user", true}});
        const Json read = document("### @user:\nq\n" + text, Json::object());
        REQUIRE(read.size() == 4);
        CHECK(read[2]["role"] == "assistant");
        CHECK(read[2]["text"] == without_blank_ends(answer));
        CHECK(read[3] == Json::parse(R"({"role": "user", "send": false, "at": ")" +
                                     read[3]["at"].get<std::string>() + R"(", "text": ""})"));
    }
}

TEST_CASE("writer: a fence the document leaves open is closed before the answer") {
    CHECK(write({Message::text(Role::assistant, "A")}, {{"after", "### @user:\n```\ncode\n"}}) ==
          "```\n\n### @assistant:\n\nA\n\n");
}

TEST_CASE("writer: what cannot be appended faithfully is refused, naming why") {
    CHECK(error_of_write({Message::text(Role::assistant, "a --> b")},
                         {{"after", "### @user:\nan unclosed <!-- here\n"}}) ==
          "ValueError: prapti: these messages cannot be appended without changing how the "
          "document reads (is there a `<!--` without its `-->`?); nothing was written");
    Message image(Role::assistant,
                  {ContentPart::make(ImageSource{MediaSourceType::url, "https://x/y.png", {}})});
    CHECK(error_of_write({image}) ==
          "ValueError: prapti: messages[0].content[0]: a Prapti document holds text; a image part "
          "has no form in it");
    CHECK(error_of_write({Message::text(Role::assistant, "x")}, {{"afterwards", ""}}) ==
          "ValueError: prapti adapter options: $.afterwards: unknown field (expected one of: "
          "after, next_user)");
}

TEST_CASE("writer: names become heading names, bytes that are not UTF-8 become U+FFFD") {
    CHECK(write({named(Message::text(Role::assistant, "ok \xff!"), "Dr. Who")}) ==
          "### @assistant/Dr__Who:\n\nok \xEF\xBF\xBD!\n\n");
}

TEST_CASE("prapti adapter: from_wire reads a Prapti text as its conversation") {
    CHECK(conversation_form(writer().from_wire("### @assistant/Alice:\nHi\n", {{"source", "x"}})) ==
          Json::parse(R"([{"role": "assistant", "text": "Hi", "name": "Alice"}])"));
}
