// wire/json_text.hpp: dump_spaced, Python's json.dumps layout (", " and ": " on one line), its
// strings (keys and values) spelled as nlohmann's dump spells them, byte for byte: escapes,
// UTF-8 kept, invalid UTF-8 as U+FFFD.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "cmfpipe/wire/json_text.hpp"
#include "support/json_string_cases.hpp"

using cmfpipe::Json;
namespace wire = cmfpipe::wire;

namespace {

std::string nlohmann_string(const std::string& text) {
    return Json(text).dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

TEST_CASE("dump_spaced: one line, a space after each comma and colon, keys as inserted") {
    Json value = Json::object();
    value["name"] = "get_weather";
    value["args"] = Json::array({1, 2.5, true, nullptr, Json::object(), Json::array()});
    value["nested"] = Json::object({{"a", Json::array({"x"})}});
    CHECK(
        wire::dump_spaced(value) ==
        R"({"name": "get_weather", "args": [1, 2.5, true, null, {}, []], "nested": {"a": ["x"]}})");
}

TEST_CASE("dump_spaced: a string key or value is written as nlohmann's dump writes it") {
    const std::vector<std::string> texts = {
        "plain text",
        "quote \" backslash \\ newline \n tab \t return \r feed \f back \b",
        std::string("nul \0 \x01 \x1f del \x7f", 15),
        "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
        "bad \xff byte \xc3 cut \xed\xa0\x80 surrogate",
        ""};
    for (const std::string& text : texts) {
        INFO(text);
        CHECK(wire::dump_spaced(Json(text)) == nlohmann_string(text));
        CHECK(wire::dump_spaced(Json::object({{text, text}})) ==
              "{" + nlohmann_string(text) + ": " + nlohmann_string(text) + "}");
    }
}

TEST_CASE("dump_spaced: a byte to escape is found at any place in a string") {
    for (const std::string& text : cmfpipe::testing::special_byte_at_every_offset()) {
        INFO(Json(text).dump(-1, ' ', true, Json::error_handler_t::replace));
        CHECK(wire::dump_spaced(Json(text)) == nlohmann_string(text));
        CHECK(wire::dump_spaced(Json::object({{text, 1}})) == "{" + nlohmann_string(text) + ": 1}");
    }
}
