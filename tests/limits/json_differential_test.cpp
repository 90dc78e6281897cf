// parse_json's own parser (sdk/src/json_text_parser.cpp) against nlohmann's SAX-DOM parse it
// replaced (support/json_reference_parse.hpp), input by input: the same accept or refuse, the
// same value (==, the same number types and key order, the same dump() byte for byte), the same
// error offset, line:col and words. Over (a) the tricky inputs listed here and every byte in each
// place a byte can stand, (b) every JSON file of the corpus and of tests/, (c) random documents
// of a fixed seed and their byte mutations.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cmfpipe/json_parse.hpp"
#include "support/json_differential.hpp"

using cmfpipe::testing::json_parse_difference;

namespace {

// The input as C++ would spell it, for a failure's message.
std::string json_diff_printable(std::string_view text) {
    std::string out;
    for (unsigned char c : text.substr(0, 300)) {
        if (c >= 0x20 && c < 0x7F && c != '\\') {
            out += static_cast<char>(c);
        } else {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02X", c);
            out += hex;
        }
    }
    return text.size() > 300 ? out + "..." : out;
}

// Runs every input under each max_depth; collects what differs (the first few, with the input).
class JsonDiffRun {
  public:
    explicit JsonDiffRun(std::vector<std::size_t> depths) : depths_(std::move(depths)) {}

    void check(std::string_view text) {
        for (std::size_t depth : depths_) {
            ++inputs;
            const std::string difference = json_parse_difference(text, depth);
            if (difference.empty()) continue;
            if (failures.size() < 10) {
                failures.push_back("max_depth " + std::to_string(depth) + ", input \"" +
                                   json_diff_printable(text) + "\": " + difference);
            }
            ++failed;
        }
    }

    std::size_t inputs = 0;
    std::size_t failed = 0;
    std::vector<std::string> failures;

  private:
    std::vector<std::size_t> depths_;
};

void json_diff_require_none(const JsonDiffRun& run) {
    std::string report;
    for (const auto& failure : run.failures) report += failure + "\n";
    INFO(run.failed << " of " << run.inputs << " inputs differ\n" << report);
    CHECK(run.failed == 0);
}

const std::vector<std::string>& json_diff_tricky_inputs() {
    static const std::vector<std::string> inputs = {
        // Nothing, blanks, structure.
        "", " ", "\t\r\n", "[", "]", "{", "}", ",", ":", "[]", "{}", " [ ] ", "[[]]", "[{}]",
        "{\"a\":[]}", "[1,]", "[,1]", "[1,,2]", "[1 2]", "[1:2]", "[1}", "{]", "{,}", "{\"a\"}",
        "{\"a\":}", "{\"a\":1,}", "{\"a\" 1}", "{\"a\":1 \"b\":2}", "{\"a\":1,\"b\"}", "{1:2}",
        "{\"a\"::1}", "{\"a\":1}}", "[1]]", "{\"a\":1,,\"b\":2}", "{\"a\",1}", "[\"a\":1]",
        "{\"a\":[1,{\"b\":null}],\"c\":{}}", "[[[[[]]]]]", "[[[[[", "]]]]", "{\"a\":{\"b\":{",
        "{\"\":\"\"}", "[\"\"]", "[{} {}]", "[{},{}]", "{} {}", "[] x", "{}x", "{} 1", "{} 12",
        "{} \"abc\"", "{} \"abc", "{} tru", "{} true", "{} [", "1 2", "\"a\" \"b\"", "null null",
        // Literals.
        "true", "false", "null", "tru", "fals", "nul", "t", "f", "n", "truex", "nulll", "True",
        "NULL", "[true1]", "[truefalse]", "[true,false,null]", "trUe", "nan", "NaN", "Infinity",
        "-Infinity", "[t]", "{\"a\":tr}", "{\"a\":nu ll}", "undefined", "'a'", "[1,'a']",
        // Numbers.
        "0", "-0", "-0.0", "0.0", "-0e0", "0e0", "0E+0", "0e-0", "1", "-1", "01", "-01", "00",
        "1.", "1.e5", ".5", "-.5", "+1", "1e", "1e+", "1e-", "1E", "1ee5", "1e5.5", "1.5.5",
        "--1", "-", "-a", "1a", "[01]", "[012]", "[-]", "[1.]", "[1e]", "{\"a\":1e+}",
        "9223372036854775807", "9223372036854775808", "-9223372036854775807",
        "-9223372036854775808", "-9223372036854775809", "18446744073709551615",
        "18446744073709551616", "-18446744073709551615", "-18446744073709551616",
        "99999999999999999999", "100000000000000000000", "123456789012345678901234567890",
        "-123456789012345678901234567890", "1E400", "-1E400", "1e308", "1e309", "-1e309",
        "1e-400", "-1e-400", "4.9e-324", "5e-324", "2.4703282292062327e-324",
        "2.4703282292062328e-324", "2.2250738585072011e-308", "2.2250738585072014e-308",
        "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308",
        "0.1000000000000000055511151231257827021181583404541015625", "1e23", "8.98846567431158e307",
        "9007199254740993", "9007199254740993.0", "0.30000000000000004", "3.141592653589793238462643",
        "1" + std::string(400, '0'), "1" + std::string(400, '0') + ".0", "0." + std::string(400, '0') + "1",
        "-0.000000000000000000000000000000000000000000001", "1e0000000000000000000000000001",
        "[1E400]", "{\"a\":-1E400}", "[1,2,3.5,-4,5e2]", "12345678901234567890e-10",
        // Strings and escapes.
        "\"\"", "\"a\"", "\"abc", "\"", "\"\\", "\"\\\"", "\"\\\"\"", "\"\\\\\"", "\"\\/\"",
        "\"\\b\\f\\n\\r\\t\"", "\"\\a\"", "\"\\x41\"", "\"\\0\"", "\"\\'\"", "\"\\U0041\"",
        "\"\\u\"", "\"\\u1\"", "\"\\u12\"", "\"\\u123\"", "\"\\u1234\"", "\"\\u12G4\"",
        "\"\\uabcd\"", "\"\\uABCD\"", "\"\\u0000\"", "\"\\u001f\"", "\"\\u007F\"", "\"\\u0080\"",
        "\"\\u07FF\"", "\"\\u0800\"", "\"\\uFFFF\"", "\"\\uD83D\\uDE00\"", "\"\\ud83d\\ude00\"",
        "\"\\uD83D\"", "\"\\uD83Dx\"", "\"\\uD83D\\\"", "\"\\uD83D\\u\"", "\"\\uD83D\\u0041\"",
        "\"\\uD83D\\uD83D\"", "\"\\uDE00\"", "\"\\uDE00\\uD83D\"", "\"\\uDBFF\\uDFFF\"",
        "\"\\uD800\\uDC00\"", "\"\\uD83D\\n\"", "\"\\uD83D", "\"\\uD83D\\", "\"\\uD83D\\uDE0",
        "\"\\uD83D\\uDE0G\"", "\"a\\u00e9b\"", "\"\\u00E9\\u00e9\"", "\"x\\\\\\\"y\"",
        std::string("\"a\0b\"", 5), "\"a\tb\"", "\"a\nb\"", "\"a\x1f\"", "\"a\x7f\"",
        "\"caf\xC3\xA9\"", "\"\xE2\x82\xAC\"", "\"\xF0\x9F\x98\x80\"", "\"\xC3\"", "\"\xC3",
        "\"\xC3\x28\"", "\"\xC0\x80\"", "\"\xC1\xBF\"", "\"\xE0\x80\x80\"", "\"\xE0\xA0\x80\"",
        "\"\xED\xA0\x80\"", "\"\xED\x9F\xBF\"", "\"\xEF\xBF\xBF\"", "\"\xF0\x80\x80\x80\"",
        "\"\xF0\x90\x80\x80\"", "\"\xF4\x8F\xBF\xBF\"", "\"\xF4\x90\x80\x80\"", "\"\xF5\x80\x80\x80\"",
        "\"\xFF\"", "\"\xFE\"", "\"\x80\"", "\"\xBF\"", "\"\xE2\x82\"", "\"\xE2\x82", "\"\xF0\x9F\x98\"",
        "\xC3\xA9", "[\"\xC3\xA9\",\"\xFF\"]", "{\"\xFF\":1}", "{\"caf\xC3\xA9\":1}",
        "\"0123456789abcdef0123456789abcdef\"", "\"0123456\\n89abcdef0123456789abcd\\u0041f\"",
        "\"0123456789abcde\xC3\xA9" "0123456789\"", "\"0123456789abcdef0123456789abcde\x01\"",
        // Byte order marks.
        "\xEF\xBB\xBF{}", "\xEF\xBB\xBF", "\xEF\xBB\xBF ", "\xEF\xBB{}", "\xEF{}", "\xEF", "\xEF\xBB",
        "\xEF\xBB\xBF\xEF\xBB\xBF{}", " \xEF\xBB\xBF{}", "\xEF\xBB\xBF\"a\"", "\xBB\xBF{}",
        "\xEF\xBF\xBB{}", "\xFE\xFF{}",
        // Duplicate and escaped keys.
        "{\"a\":1,\"a\":2}", "{\"a\":1,\"b\":2,\"a\":3}", "{\"a\":{\"b\":1},\"a\":[2]}",
        "{\"a\":[1],\"a\":{\"c\":3}}", "{\"\\u0061\":1,\"a\":2}", "{\"a\":1,\"\\u0061\":2}",
        "{\"a\\nb\":1}", "{\"\":1,\"\":2}", "{\"a\":1,\"A\":2}", "{\"k\":{\"k\":{\"k\":1}},\"k\":0}",
        // Whitespace of every kind where it may stand, and where it may not.
        " { \"a\" : [ 1 , 2 ] , \"b\" : { } } ", "\n{\n\"a\"\n:\n1\n}\n", "\r\n[\t1\r,\n2 ]",
        "[1,\v2]", "[1,\f2]", "\xA0[1]", "[1]\x00", std::string("[1]\0", 4),
        std::string("\0", 1), std::string("[\0]", 3),
        // Positions on later lines.
        "{\n  \"a\": 1,\n  \"b\": [1, 2,\n    }\n}", "[\n\n\n  tru\n]", "{\n\"a\":\n\"\\q\"}",
    };
    return inputs;
}

}  // namespace

TEST_CASE("json differential: the tricky inputs, under max_depth 512, 3 and 0") {
    JsonDiffRun run({512, 3, 0});
    for (const auto& input : json_diff_tricky_inputs()) run.check(input);
    json_diff_require_none(run);
    CHECK(run.inputs == 3 * json_diff_tricky_inputs().size());
}

TEST_CASE("json differential: every byte in every place a byte can stand") {
    // The byte alone, in a string, after a backslash, after each token's start, as a key, as a
    // value, after a value, after a UTF-8 lead byte of each length.
    const std::vector<std::pair<std::string, std::string>> places = {
        {"", ""},        {"\"", "\""},       {"\"\\", "\""},    {"\"\\u", "000\""},
        {"\"\\u00", "0\""}, {"\"\\uD83D", "\""}, {"\"\\uD83D\\", "\""}, {"\"\\uD83D\\u", "E00\""},
        {"[", "]"},      {"[1", "]"},        {"{", "}"},        {"{\"a\"", "1}"},
        {"{\"a\":", "}"}, {"{\"a\":1", "}"},   {"1", ""},         {"-", ""},
        {"1.", ""},      {"1e", ""},         {"1e+", ""},       {"0", ""},
        {"t", ""},       {"nul", ""},        {"[]", ""},        {"\"\xC3", "\""},
        {"\"\xE0", "\x80\""}, {"\"\xED", "\x80\""}, {"\"\xF0", "\x80\x80\""},
        {"\"\xF4", "\x80\x80\""}, {"\"\xE2\x82", "\""}, {"\"\xF0\x9F\x98", "\""},
        {"\"0123456", "89abcdef\""}, {"\xEF", "\xBF{}"}, {"\xEF\xBB", "{}"},
    };
    JsonDiffRun run({512, 1});
    for (const auto& [before, after] : places) {
        for (int byte = 0; byte < 256; ++byte) {
            run.check(before + static_cast<char>(byte) + after);
            run.check(before + static_cast<char>(byte));
        }
    }
    // Every pair of bytes after a quote: the UTF-8 rules whole.
    for (int lead = 0x80; lead < 0x100; ++lead)
        for (int next = 0; next < 0x100; ++next)
            run.check(std::string("\"") + static_cast<char>(lead) + static_cast<char>(next) +
                      "\x80\x80\"");
    json_diff_require_none(run);
    CHECK(run.inputs == 2 * (places.size() * 512 + 128 * 256));
}

TEST_CASE("json differential: nesting at max_depth and one past it") {
    JsonDiffRun run({0, 1, 2, 3, 4, 5, 512});
    for (const char* open : {"[", "{\"a\":", "[{\"k\":[", "[1,[", "{\"x\":[],\"y\":{\"z\":"}) {
        for (int levels = 0; levels < 8; ++levels) {
            std::string text;
            for (int i = 0; i < levels; ++i) text += open;
            run.check(text);
            run.check(text + "1");
            run.check(text + "x");
            run.check(text + "[[[[x");
            run.check(text + "\"[[\\\"[\"");
        }
    }
    run.check("[[[]],[[]],[[[]]]]");
    run.check("{\"a\":{\"b\":{}},\"c\":[[[]]]}");
    run.check("[\"[[[[[\",[[[[");
    std::string deep(600, '[');
    run.check(deep);
    run.check(deep + std::string(600, ']'));
    json_diff_require_none(run);
}

TEST_CASE("json differential: every JSON file of the corpus (../shared) and of tests/") {
    namespace fs = std::filesystem;
    JsonDiffRun run({512});
    std::size_t files = 0;
    for (const fs::path& root : {fs::path(CMFPIPE_CORPUS_DEFAULT).parent_path(),
                                fs::path(CMFPIPE_SOURCE_DIR) / "tests"}) {
        if (!fs::exists(root)) continue;
        for (auto it = fs::recursive_directory_iterator(
                 root, fs::directory_options::skip_permission_denied);
             it != fs::recursive_directory_iterator(); ++it) {
            const fs::path& path = it->path();
            const std::string extension = path.extension().string();
            if (!it->is_regular_file() || it->file_size() > 16 * 1024 * 1024) continue;
            std::ifstream in(path, std::ios::binary);
            std::stringstream content;
            content << in.rdbuf();
            const std::string text = content.str();
            // .json and .jsonl files, and the other files that begin as JSON does (fuzz seeds,
            // bodies kept as .txt).
            const std::size_t first = text.find_first_not_of(" \t\r\n");
            const bool looks_like_json =
                first != std::string::npos && (text[first] == '{' || text[first] == '[');
            if (extension != ".json" && extension != ".jsonl" && !looks_like_json) continue;
            ++files;
            run.check(text);
            if (extension == ".jsonl") {
                std::istringstream lines(text);
                for (std::string line; std::getline(lines, line);) run.check(line);
            }
        }
    }
    INFO(files << " files");
    CHECK(files >= 100);
    json_diff_require_none(run);
}

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
        static constexpr char inserted[] = {'"', '\\', '{', '}', '[', ']', ',', ':', '0', 'e',
                                            '-', '.', 'u', ' ', '\n'};
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
    std::size_t pick(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(random_); }

    void blanks(std::string& out) {
        static constexpr const char* kinds[] = {"", "", "", " ", "\n", "\t", "\r\n", "  "};
        out += kinds[pick(8)];
    }

    void string(std::string& out) {
        static constexpr const char* pieces[] = {
            "a", "role", "content", "You are a helpful assistant.", "0123456789abcdef", "\\n",
            "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\r", "\\t", "\\u0041", "\\u00e9", "\\u20AC",
            "\\uD83D\\uDE00", "\\u0000", "\\u001F", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80",
            "\xEF\xBF\xBF", "\xF4\x8F\xBF\xBF", " ", "{", "}", "[", "]", ":", ",", "'", "\x7F",
            "a much longer run of plain text that crosses a few eight byte words"};
        out += '"';
        const std::size_t n = pick(6);
        for (std::size_t i = 0; i < n; ++i) out += pieces[pick(sizeof pieces / sizeof *pieces)];
        out += '"';
    }

    void number(std::string& out) {
        static constexpr const char* edges[] = {
            "0", "-0", "-0.0", "1", "-1", "9223372036854775807", "9223372036854775808",
            "-9223372036854775808", "-9223372036854775809", "18446744073709551615",
            "18446744073709551616", "1e308", "1.7976931348623157e308", "5e-324", "1e-400",
            "2.5", "-2.5e-3", "1E+2", "3.14159", "0.1", "123456789.123456789e5"};
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
            static constexpr const char* keys[] = {"\"model\"", "\"messages\"", "\"a\"", "\"b\"",
                                                   "\"\"", "\"\\u0061\"", "\"caf\xC3\xA9\""};
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
