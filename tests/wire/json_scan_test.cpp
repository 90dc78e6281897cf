// wire/json_scan.hpp: the forward-only reader a guarded stream's fast path uses. It must take
// exactly the documents parse_json takes (else the fast path would pass what the full path calls
// broken), and decode strings as parse_json does.
#include <catch2/catch.hpp>

#include <random>

#include "cmfpipe/json_parse.hpp"
#include "cmfpipe/wire/json_scan.hpp"

namespace wire = cmfpipe::wire;

namespace {

bool scans_whole(std::string_view text) {
    wire::JsonScan scan(text);
    return scan.skip() && scan.at_end();
}

bool parses(std::string_view text) {
    return cmfpipe::try_parse_json(text).value.has_value();
}

const char* const scan_cases[] = {
    R"({"a":1})", R"( { "a" : [ 1 , 2.5 , -0 , 1e3 , 1E-2 , true , false , null ] } )",
    R"({"a":"\u00e9\ud83d\ude00\n\t\\\/\""})", R"([])", R"({})", R"("x")", "0", "-1.0e+5",
    "\"caf\xC3\xA9\"",
    // Longer than a word of eight: the fast run meets a quote, an escape, a control byte, UTF-8.
    "\"abcdefghijklmnop\\\"qrstuvwxyz\"", "\"abcdefgh\xC3\xA9ijklmnopqrstu\"",
    "\"abcdefghijklmnop\x01qr\"", "\"abcdefghij\xFFklmnopqrst\"", "\"abcdefghijklmnopqrs",
    // Not JSON: each one is refused by both.
    R"({"a":01})", R"({"a":1.})", R"({"a":.5})", R"({"a":-})", R"({"a":1e})", R"({"a":+1})",
    R"({"a":"\x"})", R"({"a":"\u12"})", R"({"a":"\ud800"})", R"({"a":"\udc00"})",
    R"({"a":"\ud800\u0041"})", "{\"a\":\"\x01\"}", "\"\xC3\"", "\"\xFF\"", "\"\xED\xA0\x80\"",
    R"({"a":1,})", R"({"a" 1})", R"({a:1})", R"([1,])", R"([1 2])", R"({"a":tru})", R"({"a":1}x)",
    R"({"a":1}{})", R"({"a":"b)", "", "   ", R"({"a":[1,{"b":[}]})", R"(nul)", "1e999"};

}  // namespace

TEST_CASE("wire: JsonScan takes what parse_json takes, and refuses what it refuses") {
    for (const char* text : scan_cases) {
        INFO(text);
        CHECK(scans_whole(text) == parses(text));
    }
}

TEST_CASE("wire: JsonScan takes no mutated stream chunk that parse_json refuses") {
    const std::string chunk =
        R"({"id":"chatcmpl-B1","object":"chat.completion.chunk","created":1718000000,)"
        R"("choices":[{"index":0,"delta":{"content":"caf\u00e9 \"ok\" \ud83d\ude00"},)"
        R"("logprobs":null,"finish_reason":null}],"usage":null})";
    REQUIRE(scans_whole(chunk));
    std::mt19937 random(29);
    const std::string alphabet = "{}[]\",:\\u0019eE+-.tfn \x01\x80\xC3\xFF";
    for (int i = 0; i < 20000; ++i) {
        std::string text = chunk;
        const int edits = 1 + static_cast<int>(random() % 3);
        for (int e = 0; e < edits; ++e) {
            const std::size_t at = random() % text.size();
            switch (random() % 3) {
                case 0:
                    text[at] = alphabet[random() % alphabet.size()];
                    break;
                case 1:
                    text.erase(at, 1);
                    break;
                default:
                    text.insert(at, 1, alphabet[random() % alphabet.size()]);
            }
        }
        INFO(text);
        // Never takes what the parser refuses (it may refuse what it is not sure of: a number
        // with a long exponent, say, which the full path then reads).
        if (scans_whole(text)) REQUIRE(parses(text));
    }
}

TEST_CASE("wire: JsonScan finds members and decodes strings as parse_json does") {
    const std::string text =
        R"({"id":"x","choices":[{"index":3,"delta":{"content":"a\"b\u00e9\ud83d\ude00\n"}}],)"
        R"("usage":null})";
    wire::JsonScan scan(text);
    REQUIRE(scan.enter_object());
    std::string content;
    std::int64_t index = -1;
    bool usage_null = false;
    while (auto key = scan.next_key()) {
        if (*key == "choices") {
            REQUIRE(scan.enter_array());
            REQUIRE(scan.next_element());
            REQUIRE(scan.enter_object());
            while (auto member = scan.next_key()) {
                if (*member == "index") {
                    REQUIRE(scan.integer(index));
                } else {
                    REQUIRE(scan.enter_object());
                    REQUIRE(scan.next_key() == std::optional<std::string_view>("content"));
                    REQUIRE(scan.string(content));
                    REQUIRE_FALSE(scan.next_key());
                }
            }
            REQUIRE_FALSE(scan.next_element());
        } else if (*key == "usage") {
            usage_null = scan.null();
        } else {
            REQUIRE(scan.skip());
        }
    }
    CHECK(scan.at_end());
    CHECK(index == 3);
    CHECK(usage_null);
    const cmfpipe::Json parsed = cmfpipe::parse_json(text, "t");
    CHECK(content == parsed["choices"][0]["delta"]["content"].get<std::string>());

    // A key spelled with an escape is no key this reader vouches for.
    wire::JsonScan escaped(R"({"con\u0074ent":"x"})");
    REQUIRE(escaped.enter_object());
    CHECK_FALSE(escaped.next_key());
    CHECK_FALSE(escaped.ok());
    // Nesting past the bound fails, however valid.
    wire::JsonScan deep("[[[[1]]]]", 3);
    CHECK_FALSE(deep.skip());
}
