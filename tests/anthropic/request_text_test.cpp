// The anthropic adapter's BodyTextReader for requests (a Messages body's conversation straight
// from its text) against what the proxy does without it (parse_json_noting_keys, then the
// adapter's request_messages over the tree), on thousands of generated request texts and byte
// mutations of them. Whenever the reader answers: the text parses into an object without
// "stream": true, its keys are plain and distinct (the proxy may pass it on as it came), and the
// messages are the same. Whenever the parse or the adapter refuses the text, the reader does not
// answer (the proxy then takes the tree's path, which gives the error).
#include <catch2/catch.hpp>

#include "cmfpipe/body_text_reader.hpp"
#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/json_parse.hpp"
#include "cmfpipe/limits.hpp"
#include "support/json_text_maker.hpp"
#include "support/registry.hpp"

namespace {

using cmfpipe::Json;

const cmfpipe::Adapter& messages_request_adapter() {
    return cmfpipe::testing::bundled_adapter("anthropic");
}

const cmfpipe::BodyTextReader& messages_request_reader() {
    const auto* reader = dynamic_cast<const cmfpipe::BodyTextReader*>(&messages_request_adapter());
    REQUIRE(reader != nullptr);
    return *reader;
}

// What the proxy reads of `text` by its tree: the messages as CMF JSON, or nullopt when the
// parse or the adapter refuses it. `passes_as_sent`: the parse noted plain, distinct keys.
struct MessagesTreeRead {
    std::optional<std::string> messages;
    std::vector<cmfpipe::cmf::Message> read;
    bool passes_as_sent = false;
    bool streamed = false;
};

MessagesTreeRead messages_tree_read(std::string_view text) {
    MessagesTreeRead out;
    try {
        cmfpipe::JsonKeyFacts facts;
        const Json body = cmfpipe::parse_json_noting_keys(text, "request body", facts);
        if (!body.is_object()) return out;
        out.passes_as_sent = !facts.byte_order_mark && !facts.escaped_key && !facts.duplicate_key &&
                             facts.most_keys <= 64 && !facts.unread_tail;
        const auto stream = body.find("stream");
        out.streamed = stream != body.end() && *stream == true;
        out.read = messages_request_adapter().request_messages(body, Json::object());
        out.messages = cmfpipe::cmf::messages_to_json(out.read).dump();
    } catch (const std::exception&) {  // cmfpipe::Error, or the tree's own type errors
    }
    return out;
}

// Request texts: the common body mostly (string contents, text blocks with cache_control, a
// system string or blocks), spelled in every way JSON allows, with members the reader skips
// (model, max_tokens, tools, metadata), and sometimes what it must leave: a key twice or escaped
// (at the top or in what it skips), "stream": true, blocks and members it does not read, a byte
// order mark, a tail.
class MessagesRequestMaker : public cmfpipe::testing::JsonTextMaker {
  public:
    using JsonTextMaker::JsonTextMaker;

    std::string text() {
        std::vector<std::string> members;
        maybe(members, 0.9, "model",
              usual({"\"claude-sonnet-4-5\"", "null", "5", "{\"id\":\"m\"}"}));
        maybe(members, 0.9, "max_tokens", usual({"1024", "null", "1.5"}));
        maybe(members, 0.97, "messages", chance(0.97) ? messages() : pick({"{}", "null", "\"m\""}));
        maybe(members, 0.4, "system", system());
        maybe(members, 0.3, "stream", usual({"false", "true", "null", "0", "\"no\""}));
        maybe(members, 0.2, "temperature", usual({"0.7", "1", "-0", "1e2", "1e400"}));
        maybe(members, 0.15,
              pick({"tools", "metadata", "tool_choice", "stop_sequences", "thinking"}),
              pick({"[]", "{}", "{\"user_id\":\"u1\"}",
                    "[{\"name\":\"f\",\"input_schema\":{\"type\":\"object\"}}]",
                    "{\"a\":1,\"a\":2}", "{\"\\u0061\":[{\"b\":null}]}", "[[[{}]]]", "[\"\\n\"]"}));
        if (chance(0.04)) members.push_back("\"mod\\u0065l\"" + space() + ":" + "\"m\"");
        std::string out = object(members, 0.04);
        if (chance(0.02)) out = "\xEF\xBB\xBF" + out;
        if (chance(0.02)) out += pick({" x", std::string(1, '\0') + "x", "\n", "{}"});
        if (chance(0.01)) out = pick({"[]", "\"s\"", "1", ""});
        return out;
    }

  private:
    std::string text_value() {
        return chance(0.93) ? pick({"\"hi\"", "\"\"", "\"caf\xC3\xA9 \\u00e9 \\n \\\"q\\\"\"",
                                    "\"\xF0\x9F\x98\x80 joe@example.com\"", "\"tab\\tend\\/\""})
                            : pick({"null", "5", "\"\\ud800\"", "\"\x01\"", "\"\xC3\"", "[]"});
    }
    std::string block() {
        std::vector<std::string> members;
        maybe(members, 0.97, "type",
              usual({"\"text\"", "\"image\"", "\"tool_result\"", "\"t\\u0065xt\"", "null",
                     "\"document\""}));
        maybe(members, 0.97, "text", text_value());
        maybe(members, 0.15, "cache_control",
              usual({"{\"type\":\"ephemeral\"}", "null", "{\"type\":\"ephemeral\",\"ttl\":\"5m\"}",
                     "{\"k\":1,\"k\":2}", "\"x\""}));
        maybe(members, 0.03, pick({"citations", "source", "tool_use_id", "note"}),
              pick({"null", "[]", "\"text\"", "1"}));
        return chance(0.02) ? pick({"null", "[]", "\"b\""}) : object(members);
    }
    std::string content() {
        if (chance(0.6)) return text_value();
        if (chance(0.03)) return pick({"null", "{}", "5"});
        std::vector<std::string> blocks;
        for (std::size_t n = below(4); n > 0; --n) blocks.push_back(block());
        return array(blocks);
    }
    std::string system() {
        if (chance(0.05)) return pick({"null", "5", "{}"});
        return content();
    }
    std::string message() {
        std::vector<std::string> members;
        maybe(members, 0.97, "role",
              chance(0.93) ? pick({"\"user\"", "\"assistant\"", "\"user\"", "\"us\\u0065r\""})
                           : pick({"\"system\"", "\"tool\"", "null", "3", "\"User\""}));
        maybe(members, 0.96, "content", content());
        maybe(members, 0.02, "name", "\"ann\"");
        maybe(members, 0.02, "cache_control", "{\"type\":\"ephemeral\"}");
        maybe(members, 0.02, "id", "7");
        return chance(0.02) ? pick({"null", "[]", "\"m\""}) : object(members);
    }
    std::string messages() {
        std::vector<std::string> out;
        for (std::size_t n = chance(0.05) ? 0 : 1 + below(4); n > 0; --n) out.push_back(message());
        return array(out);
    }
};

struct MessagesRequestTally {
    std::size_t fast = 0, refused = 0, total = 0;
};

void check_messages_request(const std::string& text, MessagesRequestTally& tally) {
    const auto fast = messages_request_reader().request_text_messages(text, Json::object());
    const MessagesTreeRead tree = messages_tree_read(text);
    ++tally.total;
    INFO(text);
    if (fast) {
        REQUIRE(tree.messages.has_value());
        REQUIRE(tree.passes_as_sent);
        REQUIRE_FALSE(tree.streamed);
        REQUIRE(cmfpipe::cmf::messages_to_json(*fast).dump() == *tree.messages);
        REQUIRE(*fast == tree.read);
        ++tally.fast;
    }
    if (!tree.messages) {
        REQUIRE_FALSE(fast.has_value());
        ++tally.refused;
    }
}

}  // namespace

TEST_CASE("anthropic request text: the common body is read from its text as from its tree") {
    const std::string text =
        R"({"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": [)"
        R"({"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}, )"
        R"({"role": "user", "content": [{"type": "text", "text": "more", )"
        R"("cache_control": {"type": "ephemeral"}}]}], "system": "be brief", "stream": false, )"
        R"("metadata": {"user_id": "u1"}})";
    const auto messages = messages_request_reader().request_text_messages(text, Json::object());
    REQUIRE(messages.has_value());
    REQUIRE(messages->size() == 4);
    // The system first, wherever it is in the text, as read_conversation reads it.
    CHECK((*messages)[0].role() == cmfpipe::cmf::Role::system);
    CHECK((*messages)[0].text_content() == "be brief");
    CHECK((*messages)[0].provenance()->message_id == "system");
    CHECK((*messages)[3].text_content() == "more");
    CHECK((*messages)[3].provenance()->message_id == "messages[2]");
    CHECK((*messages)[3].provenance()->source == "anthropic request");
    CHECK(*messages == messages_request_adapter().request_messages(cmfpipe::parse_json(text, "b"),
                                                                   Json::object()));
    // What it leaves to the tree's path.
    for (
        const std::string left : {
            R"({"messages": [], "stream": true})",
            R"({"messages": [], "tools": [{"a": 1, "a": 2}]})",
            R"({"messages": [], "metadata": {"us\u0065r_id": 1}})",
            R"({"messages": [], "messages": []})",
            R"({"messages": [{"role": "system", "content": "x"}]})",
            R"({"messages": [{"role": "user", "content": "a", "content": "b"}]})",
            R"({"messages": [{"role": "user", "content": "a", "name": "ann"}]})",
            R"({"messages": [{"role": "user", "content": [{"type": "image", "source": {}}]}]})",
            R"({"messages": [{"role": "user", "content": [{"type": "text", "text": "a", "citations": []}]}]})",
            R"({"messages": [], "system": [{"type": "text", "text": "a", "text": "b"}]})",
            R"({"messages": [], "system": 5})",
            R"({"model": "m"})",
            R"({"messages": []} x)",
            "\xEF\xBB\xBF{\"messages\": []}",
            R"({"m\u0065ssages": []})",
            R"([])",
        }) {
        INFO(left);
        CHECK_FALSE(messages_request_reader().request_text_messages(left, Json::object()));
    }
    // A null system reads as none; a list of text blocks is one system message.
    const auto blocks = messages_request_reader().request_text_messages(
        R"({"messages": [], "system": [{"type": "text", "text": "a"}, )"
        R"({"text": "b", "type": "text", "cache_control": {"type": "ephemeral"}}]})",
        Json::object());
    REQUIRE(blocks.has_value());
    REQUIRE(blocks->size() == 1);
    CHECK((*blocks)[0].size() == 2);
    CHECK(messages_request_reader()
              .request_text_messages(R"({"messages": [], "system": null})", Json::object())
              ->empty());
}

TEST_CASE("anthropic request text: generated bodies, both paths alike") {
    MessagesRequestMaker maker(2911);
    MessagesRequestTally tally;
    for (std::size_t i = 0; i < 6000; ++i) check_messages_request(maker.text(), tally);
    INFO("fast " << tally.fast << ", refused " << tally.refused << " of " << tally.total);
    CHECK(tally.fast > 1500);
    CHECK(tally.refused > 600);
}

TEST_CASE("anthropic request text: mutated bodies, both paths alike") {
    MessagesRequestMaker maker(4129);
    MessagesRequestTally tally;
    for (std::size_t i = 0; i < 6000; ++i) {
        std::string text = maker.text();
        maker.mutate(text);
        check_messages_request(text, tally);
    }
    INFO("fast " << tally.fast << ", refused " << tally.refused << " of " << tally.total);
    CHECK(tally.fast > 250);
    CHECK(tally.refused > 1500);
}

TEST_CASE("anthropic request text: keys and sizes at the limits") {
    // 64 distinct top-level keys pass; a 65th is left to the tree (past the pass-through's bound).
    std::string body = R"({"messages": [])";
    for (int i = 1; i < 64; ++i) body += ",\"k" + std::to_string(i) + "\": 1";
    CHECK(messages_request_reader().request_text_messages(body + "}", Json::object()));
    CHECK_FALSE(
        messages_request_reader().request_text_messages(body + ",\"k64\": 1}", Json::object()));
    const std::string long_text(100000, 'a');
    const auto long_read = messages_request_reader().request_text_messages(
        R"({"messages": [{"role": "user", "content": ")" + long_text + "\"}]}", Json::object());
    REQUIRE(long_read.has_value());
    CHECK((*long_read)[0].text_content() == long_text);
}

TEST_CASE("anthropic request text: nesting at the limits policy's depth, both paths alike") {
    // A skipped member nested up to and past max_depth: the reader answers exactly when the
    // parse takes the text (it vouches for what it skips, nesting included).
    const std::size_t most = cmfpipe::input_limits().max_depth;
    MessagesRequestTally tally;
    for (std::size_t depth = most - 2; depth <= most + 1; ++depth) {
        // The body's own object is one level: `depth` levels in all.
        const std::string nested = std::string(depth - 1, '[') + std::string(depth - 1, ']');
        const std::string text = R"({"messages": [], "metadata": )" + nested + "}";
        check_messages_request(text, tally);
        CHECK(messages_request_reader().request_text_messages(text, Json::object()).has_value() ==
              (depth <= most));
    }
    CHECK(tally.fast == 3);
    CHECK(tally.refused == 1);
}
