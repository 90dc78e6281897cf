// wire/json_scan.hpp: the forward-only reader a guarded stream's fast path uses. It must take
// exactly the documents parse_json takes (else the fast path would pass what the full path calls
// broken), and decode strings as parse_json does.
#include <catch2/catch.hpp>

#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cmfpipe/errors.hpp"
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

// `text` with `edits` random edits: a byte replaced, removed or inserted (from `alphabet`).
std::string mutated(std::string text, int edits, std::mt19937& random,
                    const std::string& alphabet) {
    for (int e = 0; e < edits && !text.empty(); ++e) {
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
    return text;
}

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
        const std::string text =
            mutated(chunk, 1 + static_cast<int>(random() % 3), random, alphabet);
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

namespace {

// The keys and string values of an object or array, decoded by the scanner in document order
// (`ok` false when it refuses the text).
void collect_strings(wire::JsonScan& scan, std::vector<std::string>& out, bool& ok);

void collect_value(wire::JsonScan& scan, std::vector<std::string>& out, bool& ok) {
    std::string text;
    wire::JsonScan probe = scan;  // what comes next, without reading it
    if (probe.enter_object() || (probe = scan, probe.enter_array())) {
        collect_strings(scan, out, ok);
        return;
    }
    probe = scan;
    if (probe.string(text)) {
        scan = probe;
        out.push_back(text);
        return;
    }
    ok = ok && scan.skip();
}

void collect_strings(wire::JsonScan& scan, std::vector<std::string>& out, bool& ok) {
    wire::JsonScan probe = scan;
    if (probe.enter_object()) {
        scan = probe;
        while (auto key = scan.next_key()) {
            out.emplace_back(*key);
            collect_value(scan, out, ok);
            if (!ok) return;
        }
        ok = ok && scan.ok();
        return;
    }
    if (!scan.enter_array()) {
        ok = false;
        return;
    }
    while (scan.next_element()) {
        collect_value(scan, out, ok);
        if (!ok) return;
    }
    ok = ok && scan.ok();
}

std::optional<std::vector<std::string>> scanned_strings(std::string_view text) {
    wire::JsonScan scan(text);
    std::vector<std::string> out;
    bool ok = true;
    collect_strings(scan, out, ok);
    if (!ok || !scan.at_end()) return std::nullopt;
    return out;
}

void parsed_strings(const cmfpipe::Json& json, std::vector<std::string>& out) {
    if (json.is_object()) {
        for (const auto& [key, value] : json.items()) {
            out.push_back(key);
            parsed_strings(value, out);
        }
    } else if (json.is_array()) {
        for (const auto& value : json) parsed_strings(value, out);
    } else if (json.is_string()) {
        out.push_back(json.get<std::string>());
    }
}

}  // namespace

TEST_CASE("wire: JsonScan's numbers are the parser's, and none it is not sure a double holds") {
    const std::string digits_200 = "1" + std::string(199, '0');
    const std::string digits_201 = "1" + std::string(200, '0');
    // Taken: an integer of any length up to 200 digits (the inline one of at most 18 and the
    // out-of-line one), fractions, exponents of one or two digits.
    for (const std::string& text :
         {std::string("0"), std::string("-0"), std::string("7"), std::string("123456789012345678"),
          std::string("1234567890123456789"), std::string("[1718000000,1]"), std::string("1.5"),
          std::string("-0.25e-07"), std::string("9E+99"), std::string("[12e3,4.0]"), digits_200,
          "0." + std::string(199, '5')}) {
        INFO(text);
        CHECK(scans_whole(text));
        CHECK(parses(text));
    }
    // Refused by both.
    for (const char* text :
         {"01", "-", "1.", "1e", "1e+", "+1", "-a", ".5", "1.e5", "00", "[1,01]"}) {
        INFO(text);
        CHECK_FALSE(scans_whole(text));
        CHECK_FALSE(parses(text));
    }
    // Refused by the scanner only: longer than it is sure of (the full path reads them).
    for (const std::string& text : {digits_201, std::string("1e100"), std::string("1.5e-100")}) {
        INFO(text);
        CHECK_FALSE(scans_whole(text));
        CHECK(parses(text));
    }
}

TEST_CASE("wire: JsonScan::integer takes a whole number of up to 18 digits, nothing else") {
    const auto integer = [](std::string_view text) -> std::optional<std::int64_t> {
        wire::JsonScan scan(text);
        std::int64_t n = -99;
        if (!scan.integer(n)) {
            CHECK_FALSE(scan.ok());
            return std::nullopt;
        }
        return n;
    };
    CHECK(integer("0,") == 0);   // one digit and more text: the inline step
    CHECK(integer("7") == 7);    // one digit, the text's last byte
    CHECK(integer(" 3}") == 3);  // after white space
    CHECK(integer("42,") == 42);
    CHECK(integer("-3,") == -3);
    CHECK(integer("123456789012345678") == 123456789012345678);
    for (const char* refused : {"1234567890123456789", "01", "0.0,", "1e2", "0e", "-", "", "x",
                                "\"1\"", "00,", "5.", "3E1"}) {
        INFO(refused);
        CHECK_FALSE(integer(refused));
    }
}

TEST_CASE("wire: JsonScan decodes escapes, surrogate pairs and UTF-8 as parse_json does") {
    const std::string long_run = "abcdefghijklmnopqrstuvwxyz0123456789";
    for (const std::string& body :
         {std::string(R"(\" \\ \/ \b \f \n \r \t)"), std::string(R"(\u0000\u001F\u00e9\u00E9)"),
          std::string(R"(\ud83d\ude00\uD83D\uDE00\uffff\u20AC)"), long_run + R"(\n)" + long_run,
          long_run + "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80" + long_run + R"(\t)",
          std::string("\xC3\xA9")}) {
        const std::string text = "[\"" + body + "\"]";
        INFO(text);
        REQUIRE(parses(text));
        wire::JsonScan scan(text);
        REQUIRE(scan.enter_array());
        REQUIRE(scan.next_element());
        std::string decoded = "kept:";  // appended to
        REQUIRE(scan.string(decoded));
        CHECK_FALSE(scan.next_element());
        CHECK(scan.at_end());
        CHECK(decoded == "kept:" + cmfpipe::parse_json(text, "t")[0].get<std::string>());
    }
    // Refused by both: a lone or misordered surrogate, bad hex, an unknown escape, a control
    // byte, bad UTF-8 (overlong, a surrogate, past U+10FFFF, cut short), no end.
    for (const std::string& text :
         {std::string(R"(["\ud83d"])"), std::string(R"(["\ude00\ud83d"])"),
          std::string(R"(["\ud83d\u0041"])"), std::string(R"(["\ud83dx"])"),
          std::string(R"(["\ud83d\"])"), std::string(R"(["\u00g0"])"), std::string(R"(["\u00"])"),
          std::string(R"(["\a"])"), std::string(R"(["\)"), std::string("[\"a\tb\"]"),
          std::string("[\"\xC0\xAF\"]"), std::string("[\"\xED\xA0\x80\"]"),
          std::string("[\"\xF4\x90\x80\x80\"]"), std::string("[\"\xE2\x82\"]"),
          std::string("[\"\xE2\x82"), long_run + "\"" + long_run}) {
        INFO(text);
        CHECK_FALSE(parses(text));
        wire::JsonScan scan(text);
        CHECK_FALSE((scan.skip() && scan.at_end()));
        wire::JsonScan decoding(text);
        std::string out;
        CHECK_FALSE((decoding.enter_array() && decoding.next_element() && decoding.string(out) &&
                     !decoding.next_element() && decoding.at_end()));
    }
}

TEST_CASE("wire: JsonScan's keys: UTF-8 checked, no escape, in order with duplicates") {
    {
        wire::JsonScan scan("{\"caf\xC3\xA9\":1,\"a\":2,\"a\":3}");
        REQUIRE(scan.enter_object());
        CHECK(scan.next_key() == std::optional<std::string_view>("caf\xC3\xA9"));
        REQUIRE(scan.skip());
        CHECK(scan.next_key() == std::optional<std::string_view>("a"));
        REQUIRE(scan.skip());
        CHECK(scan.next_key() == std::optional<std::string_view>("a"));  // the caller's to judge
        REQUIRE(scan.skip());
        CHECK_FALSE(scan.next_key());
        CHECK(scan.at_end());
    }
    for (const char* text : {"{\"\xC3\":1}", "{\"a\x01\":1}", R"({"a\"b":1})", R"({"a\u0041":1})",
                             R"({"abcdefghijklmnopqrstuvwxyz)", R"({"a" 1})", R"({"a"})"}) {
        INFO(text);
        wire::JsonScan scan(text);
        REQUIRE(scan.enter_object());
        CHECK_FALSE(scan.next_key());
        CHECK_FALSE(scan.ok());
    }
}

TEST_CASE("wire: JsonScan reads white space between any tokens, and fails for good once failed") {
    const std::string text =
        " \t{\r\n\"a\" :\t[ 1 ,\n\"x\" , null ] , \"b\"\n:\n\"y\" , \"c\" : 12 ,"
        " \"d\" : {  } , \"e\" : [ ] , \"f\" : 7 }\n ";
    REQUIRE(parses(text));
    wire::JsonScan scan(text);
    REQUIRE(scan.enter_object());
    CHECK(scan.next_key() == std::optional<std::string_view>("a"));
    REQUIRE(scan.enter_array());
    REQUIRE(scan.next_element());
    std::int64_t n = 0;
    REQUIRE(scan.integer(n));
    CHECK(n == 1);
    REQUIRE(scan.next_element());
    REQUIRE(scan.skip());
    REQUIRE(scan.next_element());
    CHECK(scan.null());
    CHECK_FALSE(scan.next_element());
    CHECK(scan.next_key() == std::optional<std::string_view>("b"));
    std::string y;
    REQUIRE(scan.string(y));
    CHECK(y == "y");
    CHECK(scan.next_key() == std::optional<std::string_view>("c"));
    REQUIRE(scan.integer(n));
    CHECK(n == 12);
    CHECK(scan.next_key() == std::optional<std::string_view>("d"));
    REQUIRE(scan.enter_object());
    CHECK_FALSE(scan.next_key());
    CHECK(scan.ok());
    CHECK(scan.next_key() == std::optional<std::string_view>("e"));
    REQUIRE(scan.enter_array());
    CHECK_FALSE(scan.next_element());
    CHECK(scan.next_key() == std::optional<std::string_view>("f"));
    CHECK_FALSE(scan.null());  // not null: nothing read, no failure
    CHECK(scan.ok());
    REQUIRE(scan.skip());
    CHECK_FALSE(scan.next_key());
    CHECK(scan.at_end());

    // A failure (here a string where an object is expected) ends the reading: every step after
    // it fails, even one the text would allow.
    wire::JsonScan failed(R"({"a":"x","b":null})");
    REQUIRE(failed.enter_object());
    REQUIRE(failed.next_key());
    CHECK_FALSE(failed.enter_object());
    CHECK_FALSE(failed.ok());
    std::string out;
    CHECK_FALSE(failed.string(out));
    CHECK_FALSE(failed.next_key());
    CHECK_FALSE(failed.null());
    CHECK_FALSE(failed.skip());
    CHECK_FALSE(failed.next_element());
    CHECK_FALSE(failed.integer(n));
    CHECK_FALSE(failed.at_end());
}

TEST_CASE("wire: JsonScan's nesting bound counts the containers entered and skipped") {
    CHECK(wire::JsonScan("[[1]]", 2).skip());
    CHECK_FALSE(wire::JsonScan("[[[1]]]", 2).skip());
    CHECK(wire::JsonScan(R"({"a":{"b":1}})", 2).skip());
    CHECK_FALSE(wire::JsonScan(R"({"a":{"b":{}}})", 2).skip());
    // Entered by hand, then skipped inside: the levels add up.
    wire::JsonScan scan(R"({"a":{"b":[]}})", 2);
    REQUIRE(scan.enter_object());
    REQUIRE(scan.next_key());
    CHECK_FALSE(scan.skip());  // {"b":[]} would be levels 2 and 3
    wire::JsonScan entered(R"({"a":{"b":1}})", 1);
    REQUIRE(entered.enter_object());
    REQUIRE(entered.next_key());
    CHECK_FALSE(entered.enter_object());
}

TEST_CASE("wire: JsonScan never takes a mutated event parse_json refuses, and decodes as it does") {
    // Pretty and compact, OpenAI's chunk and Anthropic's text delta; mutations of their bytes.
    const std::string events[] = {
        R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hello \u00e9 world \"q\" \ud83d\ude00"}})",
        "{ \"id\" : \"c1\" ,\n \"created\" : 1718000000 , \"choices\" : [ { \"index\" : 0 ,"
        " \"delta\" : { \"content\" : \"na\xC3\xAFve \\n\xE2\x82\xAC\" } , \"logprobs\" : null } ],"
        " \"usage\" : null , \"x\" : [ -1.5e-3 , true , false , { } ] }"};
    std::mt19937 random(2029);
    const std::string alphabet = "{}[]\",:\\u0019eE+-.tfn \t\x01\x80\xC3\xA9\xFF\xED";
    long taken = 0;
    for (int i = 0; i < 20000; ++i) {
        const std::string text = mutated(
            events[i % 2], i < 2 ? 0 : 1 + static_cast<int>(random() % 3), random, alphabet);
        INFO(text);
        const auto scanned = scanned_strings(text);
        if (!scanned) continue;
        ++taken;
        const auto parsed = cmfpipe::try_parse_json(text);
        REQUIRE(parsed.value.has_value());
        std::vector<std::string> expected;
        parsed_strings(*parsed.value, expected);
        // (parse_json keeps a duplicate key once, with the last value: compare only then)
        if (expected.size() == scanned->size()) CHECK(*scanned == expected);
    }
    CHECK(taken > 2000);  // the property says something: many mutations stay valid
}

namespace {

// skip_plain over the whole text, and the same question asked of the parser's key facts.
bool scan_plain_whole(std::string_view text, std::size_t most_keys) {
    wire::JsonScan scan(text);
    return scan.skip_plain(most_keys) && scan.at_end();
}

bool parse_plain(std::string_view text, std::size_t most_keys) {
    cmfpipe::JsonKeyFacts facts;
    try {
        (void)cmfpipe::parse_json_noting_keys(text, "t", facts, cmfpipe::InputLimits{64});
    } catch (const cmfpipe::Error&) {
        return false;
    }
    return !facts.byte_order_mark && !facts.escaped_key && !facts.duplicate_key &&
           !facts.unread_tail && facts.most_keys <= most_keys;
}

}  // namespace

TEST_CASE("wire: JsonScan::skip_plain takes a value whose objects' keys are plain and distinct") {
    CHECK(scan_plain_whole(R"({"a":{"b":[{"a":1},{"a":2}]},"b":{"a":{}}})", 64));
    CHECK_FALSE(scan_plain_whole(R"({"a":[{"b":1,"b":2}]})", 64));  // twice, nested
    CHECK_FALSE(scan_plain_whole(R"({"a":{"\u0062":1}})", 64));     // escaped
    CHECK(scan_plain_whole(R"({"a":1,"b":2,"c":3})", 3));
    CHECK_FALSE(scan_plain_whole(R"({"a":1,"b":2,"c":3})", 2));  // past the most keys
    // An object's keys are its own: the same key in a sibling or a child is no duplicate.
    CHECK(scan_plain_whole(R"([{"k":1},{"k":{"k":[{"k":0}]}}])", 64));
    CHECK_FALSE(scan_plain_whole(R"({"k":{"x":1},"k":2})", 64));
    // Keys in UTF-8, checked; a bad value anywhere fails it.
    CHECK(scan_plain_whole("{\"caf\xC3\xA9\":1,\"cafe\":2}", 64));
    CHECK_FALSE(scan_plain_whole("{\"\xC3\":1}", 64));
    CHECK_FALSE(scan_plain_whole(R"({"a":[1,]})", 64));
    // Nesting past the scan's bound fails, as parse_json's LimitExceeded.
    wire::JsonScan shallow("[[[]]]", 2);
    CHECK_FALSE(shallow.skip_plain(64));
}

TEST_CASE("wire: JsonScan::skip_plain says what the parser's key facts say, on mutated texts") {
    const std::string texts[] = {
        R"({"id":"c1","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},)"
        R"("logprobs":{"content":[{"token":"hi","logprob":-0.1,"top_logprobs":[]}]}}],)"
        R"("usage":{"prompt_tokens":5,"details":{"cached":0,"audio":0}},"a":{"b":{"c":[1,2]}}})",
        R"([{"k":1,"l":[{"k":2,"m":{"k":3}}]},{"n":null,"o":true}])"};
    std::mt19937 random(404);
    const std::string alphabet = "{}[]\",:\\u0061klmbc ";
    long plain = 0;
    for (int i = 0; i < 20000; ++i) {
        std::string text =
            mutated(texts[i % 2], i < 2 ? 0 : 1 + static_cast<int>(random() % 3), random, alphabet);
        if (random() % 5 == 0 && text.size() > 8) {  // a span twice: duplicate keys
            const std::size_t at = random() % (text.size() - 8);
            text.insert(at, text.substr(at, 1 + random() % 8));
        }
        INFO(text);
        const std::size_t most = i % 3 == 0 ? 2 : 64;
        const bool scanned = scan_plain_whole(text, most);
        // The scan may doubt what the parser takes (a number it is not sure of), never the
        // reverse.
        if (scanned) {
            REQUIRE(parse_plain(text, most));
            ++plain;
        }
        if (!parse_plain(text, most)) REQUIRE_FALSE(scanned);
    }
    CHECK(plain > 2000);
}

TEST_CASE("wire: JsonScan optional_string and optional_integer read a value or null") {
    wire::JsonScan scan(R"({"a":"x\u00e9","b":null,"c":42,"d":null,"e":1.5})");
    REQUIRE(scan.enter_object());
    std::optional<std::string> text = std::string("before");
    std::optional<std::int64_t> number = 7;
    REQUIRE(scan.next_key() == std::string_view("a"));
    REQUIRE(scan.optional_string(text));
    CHECK(text == std::optional<std::string>("x\xC3\xA9"));
    REQUIRE(scan.next_key() == std::string_view("b"));
    REQUIRE(scan.optional_string(text));
    CHECK_FALSE(text.has_value());
    REQUIRE(scan.next_key() == std::string_view("c"));
    REQUIRE(scan.optional_integer(number));
    CHECK(number == std::optional<std::int64_t>(42));
    REQUIRE(scan.next_key() == std::string_view("d"));
    REQUIRE(scan.optional_integer(number));
    CHECK_FALSE(number.has_value());
    REQUIRE(scan.next_key() == std::string_view("e"));
    CHECK_FALSE(scan.optional_integer(number));  // a fraction is no integer: the scan fails
    CHECK_FALSE(scan.ok());
    wire::JsonScan not_text("[1]");
    REQUIRE(not_text.enter_array());
    REQUIRE(not_text.next_element());
    CHECK_FALSE(not_text.optional_string(text));
}
