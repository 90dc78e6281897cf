// parse_json's own parser against nlohmann's parse it replaced, over random documents of a fixed
// seed and their byte mutations; and the proxy's pass-through answer from the facts the parse
// notes against the check over the text (serve/json_keys.cpp).
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <string>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/json_parse.hpp"
#include "json_diff_run.hpp"
#include "serve/json_keys.hpp"

using namespace cmfpipe::testing;

namespace {

// Random JSON texts of a fixed seed: nested values written with random blanks, strings mixing
// plain runs, escapes of every kind, raw UTF-8 of each length, numbers at the integer and double
// edges, duplicate and escaped keys.
class JsonDiffGenerator {
  public:
    explicit JsonDiffGenerator(std::uint64_t seed) : random_(seed) {}

    std::string document() {
        std::string out;
        blanks(out);
        value(out, 0);
        blanks(out);
        return out;
    }

    // `text` with one random edit: cut short, a byte changed, a byte put in or taken out.
    std::string mutation(const std::string& text) {
        std::string out = text;
        const std::size_t at = out.empty() ? 0 : pick(out.size());
        static constexpr char inserted[] = {'"', '\\', '{', '}', '[', ']', ',', ':',
                                            '0', 'e',  '-', '.', 'u', ' ', '\n'};
        switch (pick(6)) {
            case 0:
                out.resize(at);
                break;
            case 1:
                if (!out.empty()) out[at] = static_cast<char>(pick(256));
                break;
            case 2:
                out.insert(at, 1, inserted[pick(sizeof inserted)]);
                break;
            case 3:
                out.insert(at, 1, static_cast<char>(0x80 + pick(128)));
                break;
            case 4:
                if (!out.empty()) out.erase(at, 1);
                break;
            default:
                if (!out.empty()) out[at] = static_cast<char>(out[at] ^ (1 << pick(8)));
                break;
        }
        return out;
    }

  private:
    std::size_t pick(std::size_t n) {
        return std::uniform_int_distribution<std::size_t>(0, n - 1)(random_);
    }

    void blanks(std::string& out) {
        static constexpr const char* kinds[] = {"", "", "", " ", "\n", "\t", "\r\n", "  "};
        out += kinds[pick(8)];
    }

    void string(std::string& out) {
        static constexpr const char* pieces[] = {
            "a",
            "role",
            "content",
            "You are a helpful assistant.",
            "0123456789abcdef",
            "\\n",
            "\\\"",
            "\\\\",
            "\\/",
            "\\b",
            "\\f",
            "\\r",
            "\\t",
            "\\u0041",
            "\\u00e9",
            "\\u20AC",
            "\\uD83D\\uDE00",
            "\\u0000",
            "\\u001F",
            "\xC3\xA9",
            "\xE2\x82\xAC",
            "\xF0\x9F\x98\x80",
            "\xEF\xBF\xBF",
            "\xF4\x8F\xBF\xBF",
            " ",
            "{",
            "}",
            "[",
            "]",
            ":",
            ",",
            "'",
            "\x7F",
            "a much longer run of plain text that crosses a few eight byte words"};
        out += '"';
        const std::size_t n = pick(6);
        for (std::size_t i = 0; i < n; ++i) out += pieces[pick(sizeof pieces / sizeof *pieces)];
        out += '"';
    }

    void number(std::string& out) {
        static constexpr const char* edges[] = {"0",
                                                "-0",
                                                "-0.0",
                                                "1",
                                                "-1",
                                                "9223372036854775807",
                                                "9223372036854775808",
                                                "-9223372036854775808",
                                                "-9223372036854775809",
                                                "18446744073709551615",
                                                "18446744073709551616",
                                                "1e308",
                                                "1.7976931348623157e308",
                                                "5e-324",
                                                "1e-400",
                                                "2.5",
                                                "-2.5e-3",
                                                "1E+2",
                                                "3.14159",
                                                "0.1",
                                                "123456789.123456789e5"};
        switch (pick(4)) {
            case 0:
                out += edges[pick(sizeof edges / sizeof *edges)];
                break;
            case 1:
                out += std::to_string(static_cast<std::int64_t>(random_()) >> pick(64));
                break;
            case 2: {
                char text[40];
                std::snprintf(text, sizeof text, "%.*g", static_cast<int>(1 + pick(17)),
                              std::uniform_real_distribution<double>(-1e6, 1e6)(random_));
                out += text;
                break;
            }
            default:
                out += std::to_string(pick(1000)) + "." + std::to_string(pick(1000)) + "e" +
                       (pick(2) ? "-" : "") + std::to_string(pick(300));
        }
    }

    void value(std::string& out, int depth) {
        const std::size_t kind = depth > 4 ? 2 + pick(4) : pick(6);
        if (kind == 0) {
            out += '[';
            const std::size_t n = pick(5);
            for (std::size_t i = 0; i < n; ++i) {
                if (i > 0) out += ',';
                blanks(out);
                value(out, depth + 1);
                blanks(out);
            }
            out += ']';
        } else if (kind == 1) {
            static constexpr const char* keys[] = {"\"model\"",      "\"messages\"", "\"a\"",
                                                   "\"b\"",          "\"\"",         "\"\\u0061\"",
                                                   "\"caf\xC3\xA9\""};
            out += '{';
            const std::size_t n = pick(5);
            for (std::size_t i = 0; i < n; ++i) {
                if (i > 0) out += ',';
                blanks(out);
                if (pick(3) == 0)
                    out += keys[pick(sizeof keys / sizeof *keys)];
                else
                    string(out);
                blanks(out);
                out += ':';
                blanks(out);
                value(out, depth + 1);
            }
            out += '}';
        } else if (kind == 2) {
            string(out);
        } else if (kind == 3) {
            number(out);
        } else {
            static constexpr const char* literals[] = {"true", "false", "null"};
            out += literals[pick(3)];
        }
    }

    std::mt19937_64 random_;
};

}  // namespace

TEST_CASE("json differential: 20000 random documents of a fixed seed and 5 mutations of each") {
    JsonDiffGenerator generator(20261127);
    JsonDiffRun run({512, 3});
    std::size_t accepted_documents = 0;
    for (int i = 0; i < 20000; ++i) {
        const std::string document = generator.document();
        run.check(document);
        if (cmfpipe::try_parse_json(document).value) ++accepted_documents;
        std::string mutated = document;
        for (int m = 0; m < 5; ++m) {
            mutated = generator.mutation(m % 2 == 0 ? document : mutated);
            run.check(mutated);
        }
    }
    json_diff_require_none(run);
    CHECK(run.inputs == 2 * 20000 * 6);
    CHECK(accepted_documents == 20000);  // the generator writes only valid documents
}

// The proxy passes a client's (or upstream's) bytes on as they came only when their keys are
// plain and distinct: the facts the parse notes on its way (parse_json_noting_keys) give the
// same answer as the check over the text (serve/json_keys.cpp), on every text the parser takes.
TEST_CASE("json key facts: the same pass-through answer as the check over the text") {
    using cmfpipe::serve::keys_plain_and_distinct;
    std::size_t compared = 0, plain = 0, differ = 0;
    std::string first_difference;
    const auto compare = [&](const std::string& text) {
        cmfpipe::JsonKeyFacts facts;
        try {
            (void)cmfpipe::parse_json_noting_keys(text, "text", facts);
        } catch (const cmfpipe::Error&) {
            return;  // only texts the parser took are passed on
        }
        ++compared;
        const bool from_facts = keys_plain_and_distinct(facts);
        // After a NUL byte the parser stops reading; the facts refuse such a text.
        const bool expected = !facts.unread_tail && keys_plain_and_distinct(text);
        if (from_facts) ++plain;
        if (from_facts != expected && differ++ == 0) first_difference = json_diff_printable(text);
    };
    std::string many = "{";
    for (int i = 0; i < 65; ++i) {
        if (i == 64) compare(many + "}");  // 64 keys
        many += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":" + std::to_string(i);
    }
    compare(many + "}");  // 65 keys
    for (const auto& input : json_diff_tricky_inputs()) compare(input);
    for (const char* input :
         {"{\"a\":1,\"b\":{\"a\":2}}", "[{\"a\":1},{\"a\":2}]", "{\"a\":1}\0{", "{\"a\\\\\":1}",
          "{\"a\":\"\\\\\",\"b\":\"x\\\"y\"}", "[\"a\",\"a\"]"})
        compare(input);
    compare(std::string("{\"a\":1}\0{\"a\":2,\"a\":3}", 21));
    JsonDiffGenerator generator(7);
    for (int i = 0; i < 20000; ++i) {
        const std::string document = generator.document();
        compare(document);
        compare(generator.mutation(document));
    }
    INFO(differ << " of " << compared << " texts differ, the first: " << first_difference);
    CHECK(differ == 0);
    CHECK(compared > 20000);
    CHECK(plain > 1000);             // both answers occur, many times
    CHECK(compared - plain > 1000);  //
}
