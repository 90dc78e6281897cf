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

TEST_CASE("wire: the window keeps what is not sent and some sent text, however long the part") {
    wire::HeldBackText part(4);
    std::string whole;
    std::size_t narrowed = 0, widest = 0;
    for (int i = 0; i < 400; ++i) {  // 400 deltas of 20 characters, the processors changing none
        const std::string delta = "delta number " + std::string(1, char('a' + i % 26)) + " goes ";
        whole += delta;
        part.add(delta);
        REQUIRE(part.update(part.window()));
        part.release(false);
        if (auto cut = part.narrowing_cut()) {
            // A clean cut: after white space, before a letter.
            CHECK(part.window()[*cut - 1] == ' ');
            narrowed += part.narrow(*cut, std::string_view(part.window()).substr(*cut)) ? 1 : 0;
        }
        widest = std::max(widest, part.window().size());
    }
    CHECK(narrowed > 10);
    CHECK(widest <= 2 * 8 * (64 + 4));  // 8000 characters came: the window stays near 1 KB
    CHECK(whole.ends_with(part.window()));
    CHECK(part.window().size() >= 64 + 4);  // the context and the held text
    CHECK(part.sent() + std::string(part.held()) == whole);
    // At the end the processors see the whole part, checked against all that was sent.
    CHECK_FALSE(part.update_whole("x" + whole));
    REQUIRE(part.update_whole(whole));
    CHECK(part.release(true) == whole.substr(whole.size() - 4));
}

TEST_CASE("wire: the sent text of a long part is checked whole at its end, in every chunk") {
    // Over 200 KB sent in pieces of 3-7 KB (the text is kept in chunks of 64 KiB): sent() is all
    // of it, and a change anywhere in it (every 1021st byte, in every chunk) fails the check.
    wire::HeldBackText part(8);
    std::string whole;
    for (int i = 0; whole.size() < 200 * 1024; ++i) {
        const std::string piece(3000 + 997 * (i % 5), char('a' + i % 26));
        whole += piece;
        part.add(piece);
        REQUIRE(part.update(part.window()));
        part.release(false);
        if (i % 7 == 0) {
            CHECK(part.sent() == whole.substr(0, part.sent().size()));  // asked for midway too
        }
        if (auto cut = part.narrowing_cut())
            part.narrow(*cut, std::string_view(part.window()).substr(*cut));
    }
    const std::string sent = part.sent();
    REQUIRE(sent.size() + 8 == whole.size());
    REQUIRE(sent == whole.substr(0, sent.size()));
    std::vector<std::size_t> places = {sent.size() - 1};
    for (std::size_t at = 0; at < sent.size(); at += 1021) places.push_back(at);
    std::size_t refused = 0;
    for (std::size_t at : places) {
        std::string changed = whole;
        changed[at] = 'X';
        wire::HeldBackText copy = part;
        refused += copy.update_whole(changed) ? 0 : 1;
    }
    CHECK(refused == places.size());
    CHECK_FALSE(part.update_whole(whole.substr(0, sent.size() - 1)));
    REQUIRE(part.update_whole(whole + " and more"));
    CHECK(part.release(true) == whole.substr(sent.size()) + " and more");
    CHECK(part.sent() == whole + " and more");
}

TEST_CASE("wire: a window narrows only where the processors make the same of the shorter one") {
    wire::HeldBackText part(0);
    std::string whole;
    for (int i = 0; i < 100; ++i) whole += "plain words ";
    part.add(whole);
    REQUIRE(part.update(whole));
    part.release(false);
    const auto cut = part.narrowing_cut();
    REQUIRE(cut);
    const std::string before = part.window();
    // The processors rewrote the start of the shorter window: it stays as it was.
    CHECK_FALSE(part.narrow(*cut, "[REDACTED]" + before.substr(*cut + 5)));
    CHECK(part.window() == before);
    CHECK_FALSE(part.narrowing_cut());  // not before the window has doubled
    // What the window leaves out must be sent text only: a tail longer than the processed window
    // is refused too.
    part.add(whole);
    REQUIRE(part.update(part.window()));
    part.release(false);
    const auto again = part.narrowing_cut();
    REQUIRE(again);
    CHECK_FALSE(part.narrow(*again, "x" + part.window()));
    REQUIRE(part.narrow(*again, std::string_view(part.window()).substr(*again)));
    CHECK(part.window() == (before + whole).substr(*again));
    CHECK(part.sent() == before + whole);
}

namespace {

// A stand-in for the processors' word: final up to the last space (the pii_redactor's rule for
// prose), counting how often it is asked and what it is shown.
struct UpToLastSpace {
    std::shared_ptr<std::vector<std::string>> shown = std::make_shared<std::vector<std::string>>();
    cmfpipe::FinalLength function() const {
        return [shown = shown](std::string_view text) -> std::optional<std::size_t> {
            shown->emplace_back(text);
            const std::size_t space = text.rfind(' ');
            return space == std::string_view::npos ? 0 : space + 1;
        };
    }
};

}  // namespace

TEST_CASE("wire: text the processors say is final goes out at once, the holdback the bound") {
    UpToLastSpace final;
    wire::HeldBackText part(64);
    REQUIRE(part.update("Hello wor"));
    CHECK(part.release(false) == "");  // no final length: the holdback alone holds it all
    CHECK(part.release(false, final.function()) == "Hello ");
    CHECK(*final.shown == std::vector<std::string>{"Hello wor"});
    REQUIRE(part.update("Hello world, write to ada@exa"));
    CHECK(part.release(false, final.function()) == "world, write to ");
    // The processors are shown the processed window: the sent text before the held.
    CHECK(final.shown->back() == "Hello world, write to ada@exa");
    CHECK(part.held() == "ada@exa");
    // What the holdback allows goes out when it is more than what is final: never more than
    // `holdback` code points are held.
    wire::HeldBackText small(3);
    REQUIRE(small.update("abcdefgh"));
    CHECK(small.release(false, final.function()) == "abcde");
    // A final length past the text, or within a UTF-8 sequence, is taken as far as it may go.
    wire::HeldBackText utf8(64);
    REQUIRE(utf8.update("a\xc3\xa9 b"));
    CHECK(utf8.release(false, [](std::string_view) { return std::optional<std::size_t>(2); }) ==
          "a");
    CHECK(utf8.release(false, [](std::string_view) { return std::optional<std::size_t>(99); }) ==
          "\xc3\xa9 b");
    // nullopt: the processors cannot tell, the holdback decides.
    wire::HeldBackText unknown(2);
    REQUIRE(unknown.update("abcd"));
    CHECK(unknown.release(false, [](std::string_view) { return std::nullopt; }) == "ab");
    CHECK(unknown.release(true, final.function()) == "cd");
}

TEST_CASE("wire: the raw text that went out, and the rewrites in it, are followed") {
    wire::HeldBackText part(0, /*map_raw=*/true);
    part.add("write to ada");
    REQUIRE(part.update("write to ada"));
    UpToLastSpace final;
    wire::HeldBackText held(64, true);
    held.add("write to ada");
    REQUIRE(held.update("write to ada"));
    CHECK(held.release(false, final.function()) == "write to ");
    CHECK(held.raw_released() == 9u);
    held.add("@example.com today");
    REQUIRE(held.update("write to [REDACTED:EMAIL] today"));
    CHECK(held.release(false, final.function()) == "[REDACTED:EMAIL] ");
    // Past the rewrite: the raw text up to "today" went out, the address as its redaction.
    CHECK(held.raw_released() == std::string("write to ada@example.com ").size());
    CHECK(held.take_rewrites() ==
          std::vector<wire::HeldBackText::Rewrite>{{9, 24, "[REDACTED:EMAIL]"}});
    CHECK(held.take_rewrites().empty());
    // A rewrite half sent (the holdback cut into it): the raw text goes as far as its start.
    wire::HeldBackText cut(10, true);
    cut.add("mail bob@example.org now");
    REQUIRE(cut.update("mail [REDACTED:EMAIL] now"));
    CHECK(cut.release(false) == "mail [REDACTED:");
    CHECK(cut.raw_released() == 5u);
    CHECK(cut.take_rewrites().empty());
    CHECK(cut.release(true) == "EMAIL] now");
    CHECK(cut.raw_released() == 24u);
    CHECK(cut.take_rewrites() ==
          std::vector<wire::HeldBackText::Rewrite>{{5, 20, "[REDACTED:EMAIL]"}});
    // Without map_raw nothing is followed.
    CHECK(part.release(true) == "write to ada");
    CHECK(part.raw_released() == 12u);
    wire::HeldBackText plain(0);
    plain.add("abc");
    REQUIRE(plain.update("abc"));
    plain.release(true);
    CHECK(plain.raw_released() == 0u);
}
