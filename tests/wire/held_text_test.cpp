// wire/held_text.hpp: the held-back release of a guarded stream's text, the prefix check and the
// UTF-8 cut (their use: tests/openai/stream_guard_test.cpp, tests/anthropic/stream_guard_test.cpp).
#include <catch2/catch.hpp>

#include "cmfpipe/wire/held_text.hpp"

namespace wire = cmfpipe::wire;

TEST_CASE("wire: held-back text goes out less its last code points, all of it when whole") {
    wire::HeldBackText part(3);
    REQUIRE(part.update("Hel"));
    CHECK(part.release(false) == "");
    REQUIRE(part.update("Hello wo"));
    CHECK(part.release(false) == "Hello");
    CHECK(part.sent() == "Hello");
    CHECK(part.held() == " wo");
    REQUIRE(part.update("Hello world"));
    CHECK(part.release(false) == " wo");
    CHECK(part.release(true) == "rld");
    CHECK(part.release(true) == "");
    CHECK(part.sent() == "Hello world");
}

TEST_CASE("wire: a holdback of 0 releases everything at once") {
    wire::HeldBackText part(0);
    REQUIRE(part.update("ab"));
    CHECK(part.release(false) == "ab");
    REQUIRE(part.update("abc"));
    CHECK(part.release(false) == "c");
}

TEST_CASE("wire: processed text that no longer starts with what was sent is refused") {
    wire::HeldBackText part(0);
    REQUIRE(part.update("mail a@"));
    CHECK(part.release(false) == "mail a@");
    CHECK_FALSE(part.update("mail [REDACTED:EMAIL]"));
    CHECK(part.held() == "");
    CHECK(part.release(true) == "");
    CHECK(part.update("mail a@b.com"));  // the sent text is kept: a later match passes again
}

TEST_CASE("wire: the cut counts code points and never splits a UTF-8 sequence") {
    // "é" is 2 bytes, "€" 3, "😀" 4.
    const std::string text = "aé€😀";
    CHECK(wire::cut_before_last_code_points(text, 0) == text.size());
    CHECK(wire::cut_before_last_code_points(text, 1) == 6u);
    CHECK(wire::cut_before_last_code_points(text, 2) == 3u);
    CHECK(wire::cut_before_last_code_points(text, 3) == 1u);
    CHECK(wire::cut_before_last_code_points(text, 4) == 0u);
    CHECK(wire::cut_before_last_code_points(text, 9) == 0u);
    CHECK(wire::cut_before_last_code_points("", 2) == 0u);
    wire::HeldBackText part(1);
    REQUIRE(part.update("aé€"));
    CHECK(part.release(false) == "aé");
    // Stray continuation bytes (text a processor made need not be valid) cost at most 4 bytes a
    // step.
    CHECK(wire::cut_before_last_code_points(std::string(8, '\x80'), 1) == 4u);
}
