// The anthropic adapter's BodyTextReader for answers (a Messages answer straight from its text)
// against the full path (from_wire over the parsed text), on thousands of generated answers and
// byte mutations of them: whenever the reader answers, from_wire reads the same messages
// (extensions and custom slot included) and the text's keys are plain and distinct (the proxy
// may send it back as it came); whenever from_wire refuses the text (bad JSON, too deep, a member
// of the wrong type, an error answer), the reader does not answer.
#include <catch2/catch.hpp>

#include "cmfpipe/body_text_reader.hpp"
#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/json_parse.hpp"
#include "support/json_text_maker.hpp"
#include "support/registry.hpp"

namespace {

using cmfpipe::Json;

const cmfpipe::Adapter& messages_answer_adapter() {
    return cmfpipe::testing::bundled_adapter("anthropic");
}

const cmfpipe::BodyTextReader& messages_answer_reader() {
    const auto* reader = dynamic_cast<const cmfpipe::BodyTextReader*>(&messages_answer_adapter());
    REQUIRE(reader != nullptr);
    return *reader;
}

struct MessagesFullRead {
    std::optional<std::string> messages;
    std::vector<cmfpipe::cmf::Message> read;
    bool passes_as_sent = false;
};

MessagesFullRead messages_full_read(std::string_view text, const Json& options) {
    MessagesFullRead out;
    try {
        out.read = messages_answer_adapter().from_wire(text, options);
        out.messages = cmfpipe::cmf::messages_to_json(out.read).dump();
        cmfpipe::JsonKeyFacts facts;
        cmfpipe::parse_json_noting_keys(text, "answer", facts);
        out.passes_as_sent = !facts.byte_order_mark && !facts.escaped_key && !facts.duplicate_key &&
                             facts.most_keys <= 64 && !facts.unread_tail;
    } catch (const std::exception&) {  // cmfpipe::Error, or the tree's own type errors
    }
    return out;
}

// Messages answers: the common shape most of the time (text blocks, citations, usage with cache
// counts), with every member the reader looks at sometimes of another type, null, missing, twice,
// spelled with an escape, nested, and blocks it leaves (thinking, tool_use).
class MessagesAnswerMaker : public cmfpipe::testing::JsonTextMaker {
  public:
    using JsonTextMaker::JsonTextMaker;

    std::string answer() {
        std::vector<std::string> members;
        maybe(members, 0.95, "id", usual({"\"msg_01\"", "null", "7", "\"msg\\u005f1\""}));
        maybe(members, 0.97, "type",
              usual({"\"message\"", "\"error\"", "null", "\"message_start\"", "1"}));
        maybe(members, 0.95, "role", usual({"\"assistant\"", "null", "\"user\"", "3"}));
        maybe(members, 0.9, "model", usual({"\"claude-sonnet-4-5\"", "null", "[]", "\"m\\n\""}));
        maybe(members, 0.97, "content", chance(0.97) ? content() : pick({"null", "{}", "\"c\""}));
        maybe(members, 0.9, "stop_reason",
              usual({"\"end_turn\"", "\"max_tokens\"", "\"stop_sequence\"", "\"tool_use\"",
                     "\"pause_turn\"", "\"refusal\"", "null", "5"}));
        maybe(members, 0.9, "stop_sequence", usual({"null", "\"\\n\\nHuman:\"", "5", "[]"}));
        maybe(members, 0.85, "usage", usage());
        maybe(members, 0.1, "container", usual({"null", "{\"id\":\"c\",\"id\":\"d\"}", "[{}]"}));
        maybe(members, 0.03, pick({"error", "messages"}),
              pick({"null", "{\"message\":\"x\"}", "[]"}));
        if (chance(0.04)) members.push_back("\"\\u0069d\"" + space() + ":" + "\"escaped\"");
        std::string out = object(members, 0.04);
        if (chance(0.02)) out = "\xEF\xBB\xBF" + out;
        if (chance(0.02)) out += pick({" x", "\n", "{}"});
        return out;
    }

  private:
    std::string text_value() {
        return chance(0.95) ? pick({"\"echo: hi\"", "\"\"", "\"line\\nbreak \\\"q\\\" \\u00e9\"",
                                    "\"\xE2\x82\xAC and \xF0\x9F\x98\x80\"", "\"{\\\"a\\\": 1}\"",
                                    "\"[1, 2\""})
                            : pick({"null", "5", "\"\\ud800 lone\"", "\"\x01\"", "\"\xC3\""});
    }
    std::string block() {
        std::vector<std::string> members;
        maybe(members, 0.97, "type",
              usual({"\"text\"", "\"thinking\"", "\"tool_use\"", "\"t\\u0065xt\"", "null",
                     "\"server_tool_use\""}));
        maybe(members, 0.97, "text", text_value());
        maybe(members, 0.3, "citations",
              usual({"null", "[]",
                     "[{\"type\":\"char_location\",\"cited_text\":\"x\",\"document_index\":0}]",
                     "[{\"a\":1,\"a\":2}]", "[{\"\\u0061\":1}]"}));
        maybe(members, 0.03, pick({"thinking", "signature", "input", "cache_control"}),
              pick({"null", "{}", "\"s\"", "1"}));
        return chance(0.02) ? pick({"null", "[]", "\"b\""}) : object(members);
    }
    std::string content() {
        std::vector<std::string> blocks;
        for (std::size_t n = chance(0.05) ? 0 : 1 + below(3); n > 0; --n) blocks.push_back(block());
        return array(blocks);
    }
    std::string usage() {
        if (chance(0.05)) return pick({"null", "[]", "5"});
        std::vector<std::string> members;
        maybe(members, 0.95, "input_tokens",
              usual({"12", "0", "null", "-3", "1.5", "\"3\"", "123456789012345678",
                     "99999999999999999999", "1e3"}));
        maybe(members, 0.95, "output_tokens", usual({"7", "null", "2.0"}));
        maybe(members, 0.5, "cache_creation_input_tokens", usual({"0", "null"}));
        maybe(members, 0.5, "cache_read_input_tokens", usual({"0", "null"}));
        maybe(members, 0.3, "server_tool_use",
              usual({"{\"web_search_requests\":0}", "null", "{\"a\":1,\"a\":2}"}));
        maybe(members, 0.3, "service_tier", usual({"\"standard\"", "null"}));
        return object(members);
    }
};

struct MessagesAnswerTally {
    std::size_t fast = 0, refused = 0, total = 0;
};

void check_messages_answer(const std::string& text, const Json& options,
                           MessagesAnswerTally& tally) {
    const auto fast = messages_answer_reader().answer_text_messages(text, options);
    const MessagesFullRead full = messages_full_read(text, options);
    ++tally.total;
    INFO(text << "\noptions: " << options.dump());
    if (fast) {
        REQUIRE(full.messages.has_value());
        REQUIRE(full.passes_as_sent);
        REQUIRE(cmfpipe::cmf::messages_to_json(*fast).dump() == *full.messages);
        REQUIRE(*fast == full.read);
        ++tally.fast;
    }
    if (!full.messages) {
        REQUIRE_FALSE(fast.has_value());
        ++tally.refused;
    }
}

std::vector<Json> messages_answer_options() {
    return {Json::object(), Json{{"showInvalidToolArguments", true}}, Json{{"structured", true}}};
}

}  // namespace

TEST_CASE("anthropic answer text: the common answer is read from its text as by from_wire") {
    const std::string text =
        R"({"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", )"
        R"("content": [{"type": "text", "text": "Hello"}, {"type": "text", "text": " there", )"
        R"("citations": null}], "stop_reason": "end_turn", "stop_sequence": null, )"
        R"("usage": {"input_tokens": 12, "output_tokens": 7, "cache_read_input_tokens": 0}})";
    const auto messages = messages_answer_reader().answer_text_messages(text, Json::object());
    REQUIRE(messages.has_value());
    REQUIRE(messages->size() == 1);
    const cmfpipe::cmf::Message& message = (*messages)[0];
    CHECK(message.size() == 2);
    CHECK(message.text_content() == "Hello\n there");  // parts joined by lines
    CHECK(message.completion()->stop_reason == cmfpipe::cmf::StopReason::end);
    CHECK(message.completion()->tokens->total_tokens == 19);
    CHECK(message.provenance()->message_id == "msg_01");
    CHECK(*messages == messages_answer_adapter().from_wire(text, Json::object()));
    // A stop reason CMF has no name for is kept as the provider's, as from_wire keeps it.
    const std::string paused =
        R"({"type": "message", "content": [], "stop_reason": "pause_turn", "stop_sequence": "x"})";
    const auto paused_read = messages_answer_reader().answer_text_messages(paused, Json::object());
    REQUIRE(paused_read.has_value());
    CHECK((*paused_read)[0].custom()->at("provider_stop_reason") == "pause_turn");
    CHECK(*paused_read == messages_answer_adapter().from_wire(paused, Json::object()));
    // What it leaves to from_wire.
    for (
        const std::string left : {
            R"({"type": "error", "error": {"type": "overloaded_error", "message": "x"}})",
            R"({"content": [{"type": "text", "text": "a"}]})",
            R"({"type": "message", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}]})",
            R"({"type": "message", "content": [{"type": "thinking", "thinking": "t", "signature": "s"}]})",
            R"({"type": "message", "content": [], "usage": {"input_tokens": 1, "input_tokens": 2}})",
            R"({"type": "message", "content": [{"type": "text", "text": "a", "citations": [{"\u0061": 1}]}]})",
            R"({"type": "message", "content": [], "messages": []})",
            R"({"type": "message", "role": "user", "content": []})",
            R"({"type": "message", "content": []} x)",
            R"({"type": "message"})",
        }) {
        INFO(left);
        CHECK_FALSE(messages_answer_reader().answer_text_messages(left, Json::object()));
    }
}

TEST_CASE("anthropic answer text: generated answers, both paths alike") {
    MessagesAnswerMaker maker(7321);
    MessagesAnswerTally tally;
    const std::vector<Json> options = messages_answer_options();
    for (std::size_t i = 0; i < 6000; ++i)
        check_messages_answer(maker.answer(), options[i % 3], tally);
    INFO("fast " << tally.fast << ", refused " << tally.refused << " of " << tally.total);
    CHECK(tally.fast > 1500);
    CHECK(tally.refused > 600);
}

TEST_CASE("anthropic answer text: mutated answers, both paths alike") {
    MessagesAnswerMaker maker(613);
    MessagesAnswerTally tally;
    const std::vector<Json> options = messages_answer_options();
    for (std::size_t i = 0; i < 6000; ++i) {
        std::string text = maker.answer();
        maker.mutate(text);
        check_messages_answer(text, options[i % 3], tally);
    }
    INFO("fast " << tally.fast << ", refused " << tally.refused << " of " << tally.total);
    CHECK(tally.fast > 250);
    CHECK(tally.refused > 1500);
}
