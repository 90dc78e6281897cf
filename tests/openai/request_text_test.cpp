// The openai adapter's BodyTextReader (scan_chat_request: a request's plain messages straight
// from the body's text) against what the proxy does without it (parse_json_noting_keys, then the
// adapter's request_messages over the tree), on thousands of generated request texts and byte
// mutations of them. Whenever the reader answers: the text parses into an object without
// "stream": true, its keys are plain and distinct (the proxy may pass it on as it came), and the
// messages are the same. Whenever the parse or the adapter refuses the text, the reader does not
// answer (the proxy then takes the tree's path, which gives the error).
#include <catch2/catch.hpp>

#include <random>

#include "cmfpipe/body_text_reader.hpp"
#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/json_parse.hpp"
#include "openai_wire.hpp"
#include "support/byte_edits.hpp"
#include "support/json_text_maker.hpp"
#include "support/registry.hpp"

namespace {

using cmfpipe::Json;
namespace openai = cmfpipe::openai;

const cmfpipe::Adapter& text_adapter() {
    return cmfpipe::testing::bundled_adapter("openai");
}

// What the proxy reads of `text` by its tree: the messages as CMF JSON, or nullopt when the
// parse or the adapter refuses it. `passes_as_sent`: the parse noted plain, distinct keys.
struct TreeRead {
    std::optional<std::string> messages;
    bool passes_as_sent = false;
    bool streamed = false;
};

TreeRead text_tree_read(std::string_view text, const Json& options) {
    TreeRead read;
    try {
        cmfpipe::JsonKeyFacts facts;
        const Json body = cmfpipe::parse_json_noting_keys(text, "request body", facts);
        if (!body.is_object()) return read;
        read.passes_as_sent = !facts.byte_order_mark && !facts.escaped_key &&
                              !facts.duplicate_key && facts.most_keys <= 64 && !facts.unread_tail;
        const auto stream = body.find("stream");
        read.streamed = stream != body.end() && *stream == true;
        read.messages =
            cmfpipe::cmf::messages_to_json(text_adapter().request_messages(body, options)).dump();
    } catch (const cmfpipe::Error&) {
    }
    return read;
}

std::optional<std::string> text_fast_read(std::string_view text, const Json& options) {
    const auto messages = openai::scan_chat_request(text, options);
    if (!messages) return std::nullopt;
    return cmfpipe::cmf::messages_to_json(*messages).dump();
}

// Request texts: the common body mostly, spelled in every way JSON allows (spaces, key order,
// escapes, UTF-8), with members it skips (tools, options), and sometimes what the reader must
// leave: a key twice or escaped (at the top or in what it skips), "stream": true, messages it does
// not read, a byte order mark, a tail.
class RequestTextMaker : cmfpipe::testing::JsonTextMaker {
  public:
    explicit RequestTextMaker(std::uint32_t seed) : JsonTextMaker(seed) {}

    std::string text() {
        std::vector<std::string> members;
        maybe(members, 0.9, "model", usual({"\"gpt-4o\"", "null", "5", "{\"id\":\"m\"}"}));
        maybe(members, 0.97, "messages", chance(0.97) ? messages() : pick({"{}", "null", "\"m\""}));
        maybe(members, 0.3, "stream", usual({"false", "true", "null", "0", "\"no\""}));
        maybe(members, 0.2, "temperature", usual({"0.7", "1", "-0", "1e2", "1e400"}));
        maybe(members, 0.1, "max_tokens", usual({"100", "null"}));
        maybe(members, 0.1, pick({"tools", "response_format", "metadata", "stream_options"}),
              pick({"[]", "{}", "{\"type\":\"json_object\"}",
                    "[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"parameters\":{}}}]",
                    "{\"a\":1,\"a\":2}", "{\"\\u0061\":[{\"b\":null}]}", "[[[{}]]]"}));
        maybe(members, 0.03, pick({"input", "output"}), "\"x\"");
        if (chance(0.04)) members.push_back("\"mod\\u0065l\"" + colon() + "\"m\"");
        if (chance(0.04) && !members.empty()) members.push_back(members.front());
        std::string out = object(members, 0);
        if (chance(0.02)) out = "\xEF\xBB\xBF" + out;
        if (chance(0.02)) out += pick({" x", std::string(1, '\0') + "x", "\n", "{}"});
        if (chance(0.01)) out = pick({"[]", "\"s\"", "1", ""});
        return out;
    }

  private:
    std::string message() {
        std::vector<std::string> members;
        maybe(members, 0.97, "role",
              chance(0.93) ? pick({"\"user\"", "\"system\"", "\"assistant\"", "\"developer\"",
                                   "\"us\\u0065r\""})
                           : pick({"\"tool\"", "\"function\"", "null", "3", "\"User\""}));
        maybe(members, 0.95, "content",
              chance(0.93)
                  ? pick({"\"hi\"", "\"\"", "null", "\"caf\xC3\xA9 \\u00e9 \\n \\\"q\\\"\"",
                          "\"\xF0\x9F\x98\x80 joe@example.com\"", "\"tab\\tend\\/\""})
                  : pick({"[{\"type\":\"text\",\"text\":\"b\"}]", "5", "\"\\ud800\"", "\"\x01\"",
                          "\"\xC3\"", "{}"}));
        maybe(members, 0.03, "name", "\"ann\"");
        maybe(members, 0.02, "tool_call_id", "\"c1\"");
        maybe(members, 0.02, "cache_control", "{\"type\":\"ephemeral\"}");
        if (chance(0.03) && !members.empty()) members.push_back(members.front());
        return chance(0.02) ? pick({"null", "[]", "\"m\""}) : object(members, 0);
    }
    std::string messages() {
        const std::size_t n = chance(0.05) ? 0 : 1 + random()() % 4;
        std::string out = "[" + space();
        for (std::size_t i = 0; i < n; ++i) out += (i ? "," + space() : "") + message();
        return out + space() + "]";
    }
};

struct TextTally {
    std::size_t fast = 0, refused = 0, total = 0;
};

void check_text_paths(const std::string& text, const Json& options, TextTally& tally) {
    const auto fast = text_fast_read(text, options);
    const TreeRead tree = text_tree_read(text, options);
    ++tally.total;
    INFO(text << "\noptions: " << options.dump());
    if (fast) {
        REQUIRE(tree.messages.has_value());
        REQUIRE(tree.passes_as_sent);
        REQUIRE_FALSE(tree.streamed);
        REQUIRE(*fast == *tree.messages);
        ++tally.fast;
    }
    if (!tree.messages) {
        REQUIRE_FALSE(fast.has_value());
        ++tally.refused;
    }
}

std::vector<Json> text_options() {
    return {Json{{"apiType", "chat"}, {"showInvalidToolArguments", true}}, Json(),
            Json{{"apiType", "responses"}}};
}

}  // namespace

TEST_CASE("openai request text: the common body is read from its text as from its tree") {
    const std::string text =
        R"({"model": "m", "messages": [{"role": "system", "content": "be brief"}, )"
        R"({"role": "user", "content": "hi"}], "temperature": 0.2, "stream": false})";
    const Json options = {{"apiType", "chat"}};
    const auto messages = openai::scan_chat_request(text, options);
    REQUIRE(messages.has_value());
    REQUIRE(messages->size() == 2);
    CHECK((*messages)[1].text_content() == "hi");
    CHECK((*messages)[1].provenance()->message_id == "messages[1]");
    CHECK(*messages == text_adapter().request_messages(cmfpipe::parse_json(text, "b"), options));
    // Through the adapter's second interface, as the proxy asks for it.
    const auto* reader = dynamic_cast<const cmfpipe::BodyTextReader*>(&text_adapter());
    REQUIRE(reader != nullptr);
    CHECK(reader->request_text_messages(text, options) == messages);
    // What it leaves to the tree's path.
    for (const std::string left :
         {R"({"messages": [], "stream": true})", R"({"messages": [], "tools": [{"a": 1, "a": 2}]})",
          R"({"messages": [], "metadata": {"k\u0065y": 1}})", R"({"messages": [], "messages": []})",
          R"({"messages": [{"role": "tool"}]})",
          R"({"messages": [{"role": "user", "content": "a", "content": "b"}]})",
          R"({"model": "m"})", R"({"messages": []} x)", "\xEF\xBB\xBF{\"messages\": []}",
          R"({"m\u0065ssages": []})", R"([])"}) {
        INFO(left);
        CHECK_FALSE(openai::scan_chat_request(left, options).has_value());
    }
    CHECK_FALSE(openai::scan_chat_request(text, Json{{"apiType", "responses"}}).has_value());
    // Members it does not read are skipped, their keys checked as its own.
    CHECK(openai::scan_chat_request(
              R"({"messages": [], "tools": [{"type": "function", "function": {"name": "f"}}],)"
              R"( "response_format": {"type": "json_object"}})",
              options)
              .has_value());
}

TEST_CASE("openai request text: generated bodies, both paths alike") {
    RequestTextMaker maker(1129);
    TextTally tally;
    const std::vector<Json> options = text_options();
    for (std::size_t i = 0; i < 6000; ++i) check_text_paths(maker.text(), options[i % 3], tally);
    INFO("fast " << tally.fast << ", refused " << tally.refused << " of " << tally.total);
    CHECK(tally.fast > 1500);
    CHECK(tally.refused > 600);
}

TEST_CASE("openai request text: mutated bodies, both paths alike") {
    RequestTextMaker maker(41);
    std::mt19937 random(17);
    TextTally tally;
    const std::string bytes = std::string("{}[],:\"\\ 0atfn-\n\x01\xC3\xFF") + '\0';
    const std::vector<Json> options = text_options();
    for (std::size_t i = 0; i < 6000; ++i) {
        std::string text = maker.text();
        cmfpipe::testing::edit_bytes(text, 1 + random() % 2, random, bytes,
                                     cmfpipe::testing::LastEdit::repeat_span);
        check_text_paths(text, options[i % 2], tally);
    }
    INFO("fast " << tally.fast << ", refused " << tally.refused << " of " << tally.total);
    CHECK(tally.fast > 250);
    CHECK(tally.refused > 1500);
}

TEST_CASE("openai request text: nesting and sizes at the limits") {
    const Json options = {{"apiType", "chat"}};
    // 64 distinct top-level keys pass; a 65th is left to the tree (past the pass-through's bound).
    std::string body = R"({"messages": [])";
    for (int i = 1; i < 64; ++i) body += ",\"k" + std::to_string(i) + "\": 1";
    CHECK(openai::scan_chat_request(body + "}", options).has_value());
    CHECK_FALSE(openai::scan_chat_request(body + ",\"k64\": 1}", options).has_value());
    // A message content as long as it comes.
    const std::string long_text(100000, 'a');
    const auto long_read = openai::scan_chat_request(
        R"({"messages": [{"role": "user", "content": ")" + long_text + "\"}]}", options);
    REQUIRE(long_read.has_value());
    CHECK((*long_read)[0].text_content() == long_text);
}
