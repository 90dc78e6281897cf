// The openai adapter's fast reader of a chat.completion answer (scan_chat_completion, straight
// from the text) against its full path (parse_wire_json, then read_chat_completion over the tree),
// on thousands of generated answers and byte mutations of them: whenever the fast reader answers,
// the full path reads the same answer (same CMF messages, extensions and custom slot included);
// whenever the full path refuses the text (bad JSON, too deep, a member of the wrong type), the
// fast reader does not answer (the caller then takes the full path, which gives its error). The
// plugin's sources are compiled in (its symbols are hidden in the plugin itself).
#include <catch2/catch.hpp>

#include <random>

#include "cmfpipe/body_text_reader.hpp"
#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/json_parse.hpp"
#include "cmfpipe/limits.hpp"
#include "cmfpipe/wire/json_node.hpp"
#include "openai_wire.hpp"
#include "support/byte_edits.hpp"
#include "support/registry.hpp"

namespace {

using cmfpipe::Json;
namespace openai = cmfpipe::openai;

// What the full path makes of `text`, as CMF JSON; nullopt when it refuses it.
std::optional<std::string> scan_full_read(std::string_view text, const Json& options) {
    try {
        const Json doc = cmfpipe::wire::parse_wire_json(text, "openai response");
        return cmfpipe::cmf::messages_to_json(
                   openai::read_chat_completion(cmfpipe::wire::WireNode("openai response", doc),
                                                options))
            .dump();
    } catch (const cmfpipe::Error&) {
        return std::nullopt;
    }
}

// The fast reader's answer as CMF JSON (it never throws).
std::optional<std::string> scan_fast_read(std::string_view text, const Json& options) {
    const auto messages = openai::scan_chat_completion(text, options);
    if (!messages) return std::nullopt;
    return cmfpipe::cmf::messages_to_json(*messages).dump();
}

// A generator of chat.completion answers: the common shape most of the time, with every member
// the fast reader looks at sometimes of another type, null, missing, twice, spelled with an
// escape, nested, and the text compact or spread over lines.
class AnswerMaker {
  public:
    explicit AnswerMaker(std::uint32_t seed) : random_(seed) {}

    std::string answer() {
        std::vector<std::string> members;
        maybe(members, 0.95, "\"id\"",
              usual({"\"chatcmpl-1\"", "null", "7", "\"chat\\u0063mpl\"", "\"caf\xC3\xA9\""}));
        maybe(members, 0.95, "\"object\"",
              usual({"\"chat.completion\"", "\"chat.completion\"", "\"chat.completion\"",
                     "\"chat.completion.chunk\"", "\"response\"", "null", "1"}));
        maybe(members, 0.9, "\"created\"",
              usual({"1700000000", "0", "-5", "null", "1.5", "\"1\"", "253402300800",
                     "123456789012345678", "1e3"}));
        maybe(members, 0.9, "\"model\"", usual({"\"gpt-4o\"", "null", "[]", "\"m\\n\""}));
        maybe(
            members, 0.5, "\"system_fingerprint\"",
            usual({"\"fp_1\"", "null", "{\"a\":[1,2]}", "{\"a\":1,\"a\":2}", "[{\"\\u0061\":1}]"}));
        maybe(members, 0.9, "\"choices\"", choices());
        maybe(members, 0.8, "\"usage\"", usage());
        maybe(members, 0.05, usual({"\"error\"", "\"output\"", "\"data\"", "\"messages\""}),
              pick({"null", "{\"message\":\"x\"}", "[]"}));
        maybe(members, 0.1, "\"service_tier\"",
              usual({"\"default\"", "null", "{\"x\":{\"y\":[]}}"}));
        maybe(members, 0.05, "\"\\u0069d\"", "\"escaped\"");
        if (chance(0.05) && !members.empty()) members.push_back(members.front());  // a key twice
        return object(members);
    }

  private:
    bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(random_) < p; }
    // Any of `options`, equally likely.
    std::string pick(std::initializer_list<const char*> options) {
        std::uniform_int_distribution<std::size_t> at(0, options.size() - 1);
        return *(options.begin() + at(random_));
    }
    // The first of `options` (the usual value) mostly, else any: most answers stay readable.
    std::string usual(std::initializer_list<const char*> options) {
        return chance(0.96) ? *options.begin() : pick(options);
    }
    void maybe(std::vector<std::string>& members, double p, const std::string& key,
               const std::string& value) {
        if (chance(p)) members.push_back(key + space() + ":" + space() + value);
    }
    std::string space() { return chance(0.2) ? pick({" ", "\n  ", "\t", "\r\n"}) : ""; }
    std::string object(std::vector<std::string> members) {
        std::shuffle(members.begin(), members.end(), random_);
        std::string out = "{" + space();
        for (std::size_t i = 0; i < members.size(); ++i)
            out += (i ? "," + space() : "") + members[i];
        return out + space() + "}";
    }
    // Readable contents mostly (escapes, UTF-8, JSON for structured output, none), sometimes one
    // the reader must leave (blocks, a number, a bad escape, a lone surrogate).
    std::string content() {
        if (chance(0.93)) {
            return pick({"\"echo: hi\"", "\"\"", "null", "\"line\\nbreak \\\"quoted\\\" \\u00e9\"",
                         "\"\xE2\x82\xAC and \xF0\x9F\x98\x80\"", "\"{\\\"a\\\": 1}\"",
                         "\"[1, 2\""});
        }
        return pick({"[{\"type\":\"text\",\"text\":\"block\"}]", "5", "\"bad \\x escape\"",
                     "\"\\ud800 lone\"", "\"\x01\"", "\"\xC3\""});
    }
    std::string message() {
        std::vector<std::string> members;
        maybe(members, 0.9, "\"role\"",
              usual({"\"assistant\"", "\"assistant\"", "null", "\"user\"", "3"}));
        maybe(members, 0.9, "\"content\"", content());
        maybe(members, 0.4, "\"refusal\"", usual({"null", "null", "\"I can't\"", "1"}));
        maybe(members, 0.3, "\"tool_calls\"",
              usual({"null", "[]", "[ ]", "{}",
                     "[{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"f\","
                     "\"arguments\":\"{}\"}}]"}));
        maybe(members, 0.15, pick({"\"reasoning_content\"", "\"reasoning\""}),
              usual({"null", "\"think\"", "4"}));
        maybe(members, 0.3, "\"annotations\"", usual({"[]", "null", "[{\"type\":\"url\"}]"}));
        maybe(members, 0.1, "\"audio\"", usual({"null", "{\"id\":\"a\"}"}));
        if (chance(0.05) && !members.empty()) members.push_back(members.front());
        return object(members);
    }
    std::string choice() {
        std::vector<std::string> members;
        maybe(members, 0.9, "\"index\"", usual({"0", "1", "null", "\"0\""}));
        maybe(members, 0.95, "\"message\"",
              chance(0.95) ? message() : pick({"null", "[]", "\"m\""}));
        maybe(members, 0.5, "\"logprobs\"",
              usual({"null", "{\"content\":[]}", "{\"content\":[{\"t\":1,\"t\":2}]}"}));
        maybe(members, 0.9, "\"finish_reason\"",
              chance(0.95)
                  ? pick({"\"stop\"", "\"length\"", "\"tool_calls\"", "\"content_filter\"", "null"})
                  : "0");
        if (chance(0.05) && !members.empty()) members.push_back(members.front());
        return object(members);
    }
    std::string choices() {
        if (chance(0.05)) return pick({"null", "{}", "\"x\""});
        const std::size_t n = chance(0.1) ? 0 : chance(0.8) ? 1 : 3;
        std::string out = "[";
        for (std::size_t i = 0; i < n; ++i) out += (i ? "," + space() : "") + choice();
        return out + "]";
    }
    std::string usage() {
        if (chance(0.1)) return pick({"null", "[]", "\"u\""});
        std::vector<std::string> members;
        maybe(members, 0.9, "\"prompt_tokens\"",
              usual({"5", "0", "null", "1.0", "-1", "99999999999"}));
        maybe(members, 0.9, "\"completion_tokens\"", usual({"3", "null", "\"3\""}));
        maybe(members, 0.8, "\"total_tokens\"", usual({"8", "null", "1e2"}));
        maybe(members, 0.3, "\"prompt_tokens_details\"", "{\"cached_tokens\":0}");
        if (chance(0.05) && !members.empty()) members.push_back(members.front());
        return object(members);
    }

    std::mt19937 random_;
};

// The options the reader is given: the proxy's, none, structured output asked for, another API.
std::vector<Json> scan_options() {
    return {Json(),
            Json::object(),
            Json{{"apiType", "chat"}, {"showInvalidToolArguments", true}},
            Json{{"structured", true}},
            Json{{"apiType", "responses"}},
            Json{{"apiType", 5}}};
}

struct ScanTally {
    std::size_t fast = 0;     // the fast reader answered (and the full path agreed)
    std::size_t refused = 0;  // the full path refused (and the fast reader did not answer)
    std::size_t total = 0;
};

void check_both_paths(const std::string& text, const Json& options, ScanTally& tally) {
    const auto fast = scan_fast_read(text, options);
    const auto full = scan_full_read(text, options);
    ++tally.total;
    if (fast) {
        INFO(text << "\noptions: " << options.dump());
        REQUIRE(full.has_value());
        REQUIRE(*fast == *full);
        // from_wire too, its routing by shape and apiType included (what the contract names).
        REQUIRE(cmfpipe::cmf::messages_to_json(
                    cmfpipe::testing::bundled_adapter("openai").from_wire(text, options))
                    .dump() == *fast);
        // It vouches that the text may go back as it came: its keys plain and distinct.
        cmfpipe::JsonKeyFacts facts;
        (void)cmfpipe::parse_json_noting_keys(text, "answer", facts);
        REQUIRE_FALSE(facts.byte_order_mark);
        REQUIRE_FALSE(facts.escaped_key);
        REQUIRE_FALSE(facts.duplicate_key);
        REQUIRE_FALSE(facts.unread_tail);
        REQUIRE(facts.most_keys <= cmfpipe::body_text_most_keys);
        ++tally.fast;
    }
    if (!full) {
        INFO(text);
        REQUIRE_FALSE(fast.has_value());
        ++tally.refused;
    }
}

}  // namespace

TEST_CASE("openai scan_chat_completion: the common answer reads as the full path reads it") {
    const std::string text =
        R"({"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": "m", )"
        R"("system_fingerprint": "fp_mock", "choices": [{"index": 0, "message": {"role": )"
        R"("assistant", "content": "echo: hi"}, "logprobs": null, "finish_reason": "stop"}], )"
        R"("usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8}})";
    for (const Json& options : scan_options()) {
        INFO(options.dump());
        const auto fast = scan_fast_read(text, options);
        const bool chat =
            !options.is_object() || !options.contains("apiType") || options["apiType"] == "chat";
        REQUIRE(fast.has_value() == chat);
        if (chat) CHECK(*fast == *scan_full_read(text, options));
    }
    const auto messages = openai::scan_chat_completion(text, Json());
    REQUIRE(messages->size() == 1);
    CHECK(messages->front().text_content() == "echo: hi");
    CHECK(messages->front().completion()->tokens->total_tokens == 8);
    CHECK(messages->front().provenance()->message_id == "chatcmpl-1");
    // The adapter's BodyTextReader (what the proxy asks first) and its from_wire (the full path)
    // give the same.
    const auto* reader =
        dynamic_cast<const cmfpipe::BodyTextReader*>(&cmfpipe::testing::bundled_adapter("openai"));
    REQUIRE(reader != nullptr);
    CHECK(reader->answer_text_messages(text, Json{{"apiType", "chat"}}) == messages);
    CHECK(cmfpipe::cmf::messages_to_json(cmfpipe::testing::bundled_adapter("openai").from_wire(
              text, Json{{"apiType", "chat"}})) == cmfpipe::cmf::messages_to_json(*messages));
}

TEST_CASE("openai scan_chat_completion: what it leaves to the full path") {
    const auto leaves = [](const std::string& text) {
        INFO(text);
        CHECK_FALSE(openai::scan_chat_completion(text, Json()).has_value());
    };
    const std::string message = R"({"role":"assistant","content":"x"})";
    const auto with = [&](const std::string& choice_message, const std::string& extra = "") {
        return R"({"object":"chat.completion",)" + extra + R"("choices":[{"message":)" +
               choice_message + "}]}";
    };
    CHECK(openai::scan_chat_completion(with(message), Json()).has_value());
    leaves(with(R"({"role":"assistant","content":"x","refusal":"no"})"));
    leaves(with(R"({"role":"assistant","content":[{"type":"text","text":"x"}]})"));
    leaves(with(R"({"role":"assistant","content":"x","content":"y"})"));  // the parser keeps y
    leaves(with(R"({"role":"assistant","reasoning_content":"hm","content":"x"})"));
    leaves(with(R"({"role":"assistant","tool_calls":[{"id":"c"}]})"));
    leaves(with(R"({"role":"tool","content":"x"})"));
    leaves(with(message, R"("\u006fbject":"chat.completion",)"));  // a key with an escape
    leaves(with(message, R"("error":null,)"));
    // A key twice or escaped in a member it skips: the text could not go back as it came.
    leaves(with(message, R"("x":{"a":1,"a":2},)"));
    leaves(with(message, R"("x":[{"\u0061":1}],)"));
    CHECK(openai::scan_chat_completion(with(message, R"("x":{"a":[{"b":1}],"c":{}},)"), Json())
              .has_value());
    leaves(R"({"object":"chat.completion.chunk","choices":[{"message":)" + message + "}]}");
    leaves(R"({"choices":[{"message":)" + message + "}]}");  // no object: read by its shape
    leaves(with(message) + " x");
    leaves("\xEF\xBB\xBF" + with(message));  // a byte order mark, which the parser skips
    leaves(R"({"object":"chat.completion","choices":[]})");
    // Nested past max_depth in a member it skips: the parser's LimitExceeded, not an answer.
    std::string deep = std::string(cmfpipe::input_limits().max_depth, '[') +
                       std::string(cmfpipe::input_limits().max_depth, ']');
    leaves(with(message, R"("x":)" + deep + ","));
    deep = std::string(cmfpipe::input_limits().max_depth - 1, '[') +
           std::string(cmfpipe::input_limits().max_depth - 1, ']');
    CHECK(openai::scan_chat_completion(with(message, R"("x":)" + deep + ","), Json()).has_value());
}

TEST_CASE("openai scan_chat_completion: generated answers, both paths alike") {
    AnswerMaker maker(2911);
    ScanTally tally;
    const std::vector<Json> options = scan_options();
    for (std::size_t i = 0; i < 6000; ++i) {
        const std::string text = maker.answer();
        check_both_paths(text, options[i % options.size()], tally);
    }
    INFO("fast " << tally.fast << ", refused " << tally.refused << " of " << tally.total);
    // Both sides are exercised: many answers read fast, many refused by the full path.
    CHECK(tally.fast > 600);
    CHECK(tally.refused > 600);
}

TEST_CASE("openai scan_chat_completion: mutated answers, both paths alike") {
    AnswerMaker maker(77);
    std::mt19937 random(5);
    ScanTally tally;
    const std::string bytes = "{}[],:\"\\ 0a-.eE\n\x01\xC3\xFF";
    const std::vector<Json> options = {Json(), Json{{"structured", true}}};
    for (std::size_t i = 0; i < 3000; ++i) {
        std::string text = maker.answer();
        cmfpipe::testing::edit_bytes(text, 1 + random() % 3, random, bytes,
                                     cmfpipe::testing::LastEdit::cut);
        check_both_paths(text, options[i % options.size()], tally);
    }
    INFO("fast " << tally.fast << ", refused " << tally.refused << " of " << tally.total);
    CHECK(tally.fast > 100);
    CHECK(tally.refused > 1000);
}
