// The answer's JSON text (host/answer_bound.hpp's dump_within): nlohmann's dump(2) byte for byte,
// written by the host's own writer, and the bound checked while it is written.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "cmfpipe/core/host/answer_bound.hpp"
#include "support/json_string_cases.hpp"

using namespace cmfpipe;

namespace {

std::string dump_reference(const Json& value) {
    return value.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

Json answer_text_sample() {
    Json value = Json::object();
    value["plain"] = "What is a nonce, in one sentence?";
    value["escapes"] = "quote \" backslash \\ newline \n tab \t return \r feed \f back \b";
    value["controls"] = std::string("nul \x01 \x1f del \x7f", 16);
    value["utf8"] = "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80";
    value["invalid utf8"] = "bad \xff byte \xc3 cut \xed\xa0\x80 surrogate";
    value["key \"quoted\"\n"] = true;
    value["bad key \xfe"] = false;
    value["null"] = nullptr;
    value["integers"] = Json::array({0, -1, 42, std::int64_t{-9223372036854775807LL - 1},
                                     std::uint64_t{18446744073709551615ULL}});
    value["floats"] = Json::array({0.2, -0.0, 1e300, 1.5e-7, 3.0, 100.0, 1e21, 123456789.125});
    value["empty"] = Json::object({{"array", Json::array()}, {"object", Json::object()}});
    value["nested"] = Json::array({Json::array({Json::object({{"a", Json::array({1, "x"})}})})});
    value["binary"] = Json::binary({1, 2, 3});
    return value;
}

}  // namespace

TEST_CASE("dump_within writes what dump(2) writes, byte for byte", "[answer_text]") {
    const host::AnswerBound unbounded;
    const Json value = answer_text_sample();
    CHECK(host::dump_within(value, unbounded) == dump_reference(value));
    for (const auto& [key, member] : value.items()) {
        INFO(key);
        CHECK(host::dump_within(member, unbounded) == dump_reference(member));
    }
    CHECK(host::dump_within(Json("just a string"), unbounded) == "\"just a string\"\n");
    CHECK(host::dump_within(Json(2.5), unbounded) == "2.5\n");
    CHECK(host::dump_within(Json(std::nan("")), unbounded) == "null\n");
}

TEST_CASE("dump_within stops at its bound while it writes", "[answer_text]") {
    const Json value = answer_text_sample();
    const std::size_t size = dump_reference(value).size();
    host::AnswerBound bound;
    bound.name = "--max-answer";
    bound.max_bytes = size;
    CHECK(host::dump_within(value, bound) == dump_reference(value));
    bound.max_bytes = size - 1;
    CHECK_THROWS_MATCHES(host::dump_within(value, bound), host::AnswerTooLarge,
                         Catch::Message("the answer is over --max-answer " +
                                        std::to_string(size - 1) + " bytes (as it was written)"));
    bound.max_bytes = 10;  // a long string is refused before it is copied
    CHECK_THROWS_AS(host::dump_within(Json(std::string(1000, 'x')), bound), host::AnswerTooLarge);
}

TEST_CASE("dump_within finds a byte to escape at any place in a string", "[answer_text]") {
    const host::AnswerBound unbounded;
    for (const std::string& text : testing::special_byte_at_every_offset()) {
        INFO(Json(text).dump(-1, ' ', true, Json::error_handler_t::replace));
        CHECK(host::dump_within(Json(text), unbounded) == dump_reference(Json(text)));
    }
}
