// parse_json's own parser (sdk/src/json_text_parser.cpp) against nlohmann's SAX-DOM parse it
// replaced (support/json_reference_parse.hpp), input by input: the same accept or refuse, the
// same value (==, the same number types and key order, the same dump() byte for byte), the same
// error offset, line:col and words. Over (a) the tricky inputs listed here and every byte in each
// place a byte can stand, (b) every JSON file of the corpus and of tests/, (c) random documents
// of a fixed seed and their byte mutations (json_differential_random_test.cpp).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "json_diff_run.hpp"

using namespace cmfpipe::testing;

const std::vector<std::string>& cmfpipe::testing::json_diff_tricky_inputs() {
    static const std::vector<std::string> inputs = {
        // Nothing, blanks, structure.
        "",
        " ",
        "\t\r\n",
        "[",
        "]",
        "{",
        "}",
        ",",
        ":",
        "[]",
        "{}",
        " [ ] ",
        "[[]]",
        "[{}]",
        "{\"a\":[]}",
        "[1,]",
        "[,1]",
        "[1,,2]",
        "[1 2]",
        "[1:2]",
        "[1}",
        "{]",
        "{,}",
        "{\"a\"}",
        "{\"a\":}",
        "{\"a\":1,}",
        "{\"a\" 1}",
        "{\"a\":1 \"b\":2}",
        "{\"a\":1,\"b\"}",
        "{1:2}",
        "{\"a\"::1}",
        "{\"a\":1}}",
        "[1]]",
        "{\"a\":1,,\"b\":2}",
        "{\"a\",1}",
        "[\"a\":1]",
        "{\"a\":[1,{\"b\":null}],\"c\":{}}",
        "[[[[[]]]]]",
        "[[[[[",
        "]]]]",
        "{\"a\":{\"b\":{",
        "{\"\":\"\"}",
        "[\"\"]",
        "[{} {}]",
        "[{},{}]",
        "{} {}",
        "[] x",
        "{}x",
        "{} 1",
        "{} 12",
        "{} \"abc\"",
        "{} \"abc",
        "{} tru",
        "{} true",
        "{} [",
        "1 2",
        "\"a\" \"b\"",
        "null null",
        // Literals.
        "true",
        "false",
        "null",
        "tru",
        "fals",
        "nul",
        "t",
        "f",
        "n",
        "truex",
        "nulll",
        "True",
        "NULL",
        "[true1]",
        "[truefalse]",
        "[true,false,null]",
        "trUe",
        "nan",
        "NaN",
        "Infinity",
        "-Infinity",
        "[t]",
        "{\"a\":tr}",
        "{\"a\":nu ll}",
        "undefined",
        "'a'",
        "[1,'a']",
        // Numbers.
        "0",
        "-0",
        "-0.0",
        "0.0",
        "-0e0",
        "0e0",
        "0E+0",
        "0e-0",
        "1",
        "-1",
        "01",
        "-01",
        "00",
        "1.",
        "1.e5",
        ".5",
        "-.5",
        "+1",
        "1e",
        "1e+",
        "1e-",
        "1E",
        "1ee5",
        "1e5.5",
        "1.5.5",
        "--1",
        "-",
        "-a",
        "1a",
        "[01]",
        "[012]",
        "[-]",
        "[1.]",
        "[1e]",
        "{\"a\":1e+}",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775807",
        "-9223372036854775808",
        "-9223372036854775809",
        "18446744073709551615",
        "18446744073709551616",
        "-18446744073709551615",
        "-18446744073709551616",
        "99999999999999999999",
        "100000000000000000000",
        "123456789012345678901234567890",
        "-123456789012345678901234567890",
        "1E400",
        "-1E400",
        "1e308",
        "1e309",
        "-1e309",
        "1e-400",
        "-1e-400",
        "4.9e-324",
        "5e-324",
        "2.4703282292062327e-324",
        "2.4703282292062328e-324",
        "2.2250738585072011e-308",
        "2.2250738585072014e-308",
        "1.7976931348623157e308",
        "1.7976931348623158e308",
        "1.7976931348623159e308",
        "0.1000000000000000055511151231257827021181583404541015625",
        "1e23",
        "8.98846567431158e307",
        "9007199254740993",
        "9007199254740993.0",
        "0.30000000000000004",
        "3.141592653589793238462643",
        "1" + std::string(400, '0'),
        "1" + std::string(400, '0') + ".0",
        "0." + std::string(400, '0') + "1",
        "-0.000000000000000000000000000000000000000000001",
        "1e0000000000000000000000000001",
        "[1E400]",
        "{\"a\":-1E400}",
        "[1,2,3.5,-4,5e2]",
        "12345678901234567890e-10",
        // Strings and escapes.
        "\"\"",
        "\"a\"",
        "\"abc",
        "\"",
        "\"\\",
        "\"\\\"",
        "\"\\\"\"",
        "\"\\\\\"",
        "\"\\/\"",
        "\"\\b\\f\\n\\r\\t\"",
        "\"\\a\"",
        "\"\\x41\"",
        "\"\\0\"",
        "\"\\'\"",
        "\"\\U0041\"",
        "\"\\u\"",
        "\"\\u1\"",
        "\"\\u12\"",
        "\"\\u123\"",
        "\"\\u1234\"",
        "\"\\u12G4\"",
        "\"\\uabcd\"",
        "\"\\uABCD\"",
        "\"\\u0000\"",
        "\"\\u001f\"",
        "\"\\u007F\"",
        "\"\\u0080\"",
        "\"\\u07FF\"",
        "\"\\u0800\"",
        "\"\\uFFFF\"",
        "\"\\uD83D\\uDE00\"",
        "\"\\ud83d\\ude00\"",
        "\"\\uD83D\"",
        "\"\\uD83Dx\"",
        "\"\\uD83D\\\"",
        "\"\\uD83D\\u\"",
        "\"\\uD83D\\u0041\"",
        "\"\\uD83D\\uD83D\"",
        "\"\\uDE00\"",
        "\"\\uDE00\\uD83D\"",
        "\"\\uDBFF\\uDFFF\"",
        "\"\\uD800\\uDC00\"",
        "\"\\uD83D\\n\"",
        "\"\\uD83D",
        "\"\\uD83D\\",
        "\"\\uD83D\\uDE0",
        "\"\\uD83D\\uDE0G\"",
        "\"a\\u00e9b\"",
        "\"\\u00E9\\u00e9\"",
        "\"x\\\\\\\"y\"",
        std::string("\"a\0b\"", 5),
        "\"a\tb\"",
        "\"a\nb\"",
        "\"a\x1f\"",
        "\"a\x7f\"",
        "\"caf\xC3\xA9\"",
        "\"\xE2\x82\xAC\"",
        "\"\xF0\x9F\x98\x80\"",
        "\"\xC3\"",
        "\"\xC3",
        "\"\xC3\x28\"",
        "\"\xC0\x80\"",
        "\"\xC1\xBF\"",
        "\"\xE0\x80\x80\"",
        "\"\xE0\xA0\x80\"",
        "\"\xED\xA0\x80\"",
        "\"\xED\x9F\xBF\"",
        "\"\xEF\xBF\xBF\"",
        "\"\xF0\x80\x80\x80\"",
        "\"\xF0\x90\x80\x80\"",
        "\"\xF4\x8F\xBF\xBF\"",
        "\"\xF4\x90\x80\x80\"",
        "\"\xF5\x80\x80\x80\"",
        "\"\xFF\"",
        "\"\xFE\"",
        "\"\x80\"",
        "\"\xBF\"",
        "\"\xE2\x82\"",
        "\"\xE2\x82",
        "\"\xF0\x9F\x98\"",
        "\xC3\xA9",
        "[\"\xC3\xA9\",\"\xFF\"]",
        "{\"\xFF\":1}",
        "{\"caf\xC3\xA9\":1}",
        "\"0123456789abcdef0123456789abcdef\"",
        "\"0123456\\n89abcdef0123456789abcd\\u0041f\"",
        "\"0123456789abcde\xC3\xA9"
        "0123456789\"",
        "\"0123456789abcdef0123456789abcde\x01\"",
        // Byte order marks.
        "\xEF\xBB\xBF{}",
        "\xEF\xBB\xBF",
        "\xEF\xBB\xBF ",
        "\xEF\xBB{}",
        "\xEF{}",
        "\xEF",
        "\xEF\xBB",
        "\xEF\xBB\xBF\xEF\xBB\xBF{}",
        " \xEF\xBB\xBF{}",
        "\xEF\xBB\xBF\"a\"",
        "\xBB\xBF{}",
        "\xEF\xBF\xBB{}",
        "\xFE\xFF{}",
        // Duplicate and escaped keys.
        "{\"a\":1,\"a\":2}",
        "{\"a\":1,\"b\":2,\"a\":3}",
        "{\"a\":{\"b\":1},\"a\":[2]}",
        "{\"a\":[1],\"a\":{\"c\":3}}",
        "{\"\\u0061\":1,\"a\":2}",
        "{\"a\":1,\"\\u0061\":2}",
        "{\"a\\nb\":1}",
        "{\"\":1,\"\":2}",
        "{\"a\":1,\"A\":2}",
        "{\"k\":{\"k\":{\"k\":1}},\"k\":0}",
        // Whitespace of every kind where it may stand, and where it may not.
        " { \"a\" : [ 1 , 2 ] , \"b\" : { } } ",
        "\n{\n\"a\"\n:\n1\n}\n",
        "\r\n[\t1\r,\n2 ]",
        "[1,\v2]",
        "[1,\f2]",
        "\xA0[1]",
        "[1]\x00",
        std::string("[1]\0", 4),
        std::string("\0", 1),
        std::string("[\0]", 3),
        // A token holding the words of a message (the reference once kept part of it).
        "{\"a\":\"c'; expected  \\ud8u3edd\"}",
        "[\"'; expected \\x\"]",
        // Positions on later lines.
        "{\n  \"a\": 1,\n  \"b\": [1, 2,\n    }\n}",
        "[\n\n\n  tru\n]",
        "{\n\"a\":\n\"\\q\"}",
    };
    return inputs;
}

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
        {"", ""},
        {"\"", "\""},
        {"\"\\", "\""},
        {"\"\\u", "000\""},
        {"\"\\u00", "0\""},
        {"\"\\uD83D", "\""},
        {"\"\\uD83D\\", "\""},
        {"\"\\uD83D\\u", "E00\""},
        {"[", "]"},
        {"[1", "]"},
        {"{", "}"},
        {"{\"a\"", "1}"},
        {"{\"a\":", "}"},
        {"{\"a\":1", "}"},
        {"1", ""},
        {"-", ""},
        {"1.", ""},
        {"1e", ""},
        {"1e+", ""},
        {"0", ""},
        {"t", ""},
        {"nul", ""},
        {"[]", ""},
        {"\"\xC3", "\""},
        {"\"\xE0", "\x80\""},
        {"\"\xED", "\x80\""},
        {"\"\xF0", "\x80\x80\""},
        {"\"\xF4", "\x80\x80\""},
        {"\"\xE2\x82", "\""},
        {"\"\xF0\x9F\x98", "\""},
        {"\"0123456", "89abcdef\""},
        {"\xEF", "\xBF{}"},
        {"\xEF\xBB", "{}"},
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
    for (const fs::path& root :
         {fs::path(CMFPIPE_CORPUS_DEFAULT).parent_path(), fs::path(CMFPIPE_SOURCE_DIR) / "tests"}) {
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

TEST_CASE("json differential: wide objects, a duplicate key at every place, nested wide objects") {
    JsonDiffRun run({512, 2});
    // {"k0":0,...,"k<n-1>":n-1} with `repeated` (a key of it, or a new one) added after member
    // `at`, its value an object.
    const auto wide = [](int n, int at, const std::string& repeated, const std::string& inner) {
        std::string text = "{";
        for (int i = 0; i < n; ++i) {
            if (i > 0) text += ",";
            text += "\"k" + std::to_string(i) + "\":" + std::to_string(i);
            if (i == at) text += ",\"" + repeated + "\":" + inner;
        }
        return text + "}";
    };
    for (int n : {31, 32, 33, 34, 64, 65, 100}) {
        for (int at : {0, 1, 30, 31, 32, 33, n - 1}) {
            if (at >= n) continue;
            const std::vector<std::string> repeats = {
                "k0", "k31", "k32", "k33", "k" + std::to_string(n - 1), "new", "k\\u0030", ""};
            for (const std::string& repeated : repeats) {
                run.check(wide(n, at, repeated, "{\"x\":[1,2]}"));
                run.check(wide(n, at, repeated, wide(40, 35, "k2", "null")));
            }
        }
    }
    json_diff_require_none(run);
    CHECK(run.inputs == 2 * (7 * 7 - 6) * 8 * 2);  // `at` >= n: 3, 2 and 1 places for 31..33
}

TEST_CASE("json parse: an object of 100000 keys is read in one pass, its duplicates found") {
    std::string text = "{";
    for (int i = 0; i < 100000; ++i)
        text += (i > 0 ? ",\"k" : "\"k") + std::to_string(i) + "\":" + std::to_string(i);
    text += ",\"k99999\":\"last\",\"k0\":\"first\"}";
    cmfpipe::JsonKeyFacts facts;
    const cmfpipe::Json object = cmfpipe::parse_json_noting_keys(text, "wide.json", facts);
    CHECK(object.size() == 100000);
    CHECK(object.begin().key() == "k0");
    CHECK(object["k0"] == "first");
    CHECK(object["k99999"] == "last");
    CHECK(object["k50000"] == 50000);
    CHECK(facts.duplicate_key);
    CHECK(facts.most_keys == 100000);
}
