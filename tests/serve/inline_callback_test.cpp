// serve/inline_callback.hpp: the router's completion type. A capture is called with what is
// passed, moved with the callback, and destroyed exactly once, kept inline or on the heap.
#include <array>
#include <catch2/catch.hpp>
#include <memory>
#include <optional>
#include <string>

#include "serve/inline_callback.hpp"

using cmfpipe::serve::InlineCallback;

namespace {

// Counts its destructions that own something (a moved-from one owns nothing).
struct DestroyCounter {
    std::shared_ptr<int> destroyed;
    bool owner = true;
    explicit DestroyCounter(std::shared_ptr<int> count) : destroyed(std::move(count)) {}
    DestroyCounter(DestroyCounter&& other) noexcept
        : destroyed(other.destroyed), owner(std::exchange(other.owner, false)) {}
    ~DestroyCounter() {
        if (owner) ++*destroyed;
    }
};

}  // namespace

TEST_CASE("inline callback: a small capture is called, moved and destroyed once") {
    auto session = std::make_shared<std::string>("session");
    auto destroyed = std::make_shared<int>(0);
    std::optional<std::string> got;
    {
        InlineCallback<std::optional<std::string>> done =
            [session, counter = DestroyCounter(destroyed), &got](std::optional<std::string> v) {
                got = *session + ":" + v.value_or("none");
            };
        CHECK(session.use_count() == 2);
        InlineCallback<std::optional<std::string>> moved = std::move(done);
        CHECK_FALSE(done);
        REQUIRE(moved);
        moved(std::string("answer"));
        CHECK(got == "session:answer");
        moved(std::nullopt);
        CHECK(got == "session:none");
        CHECK(*destroyed == 0);
    }
    CHECK(*destroyed == 1);
    CHECK(session.use_count() == 1);
}

TEST_CASE("inline callback: a capture too large to keep inline works the same from the heap") {
    auto destroyed = std::make_shared<int>(0);
    std::array<char, 200> big{};
    big[199] = 'z';
    std::string got;
    {
        InlineCallback<int> done = [big, counter = DestroyCounter(destroyed), &got](int n) {
            got = std::string(1, big[199]) + std::to_string(n);
        };
        InlineCallback<int> other;
        other = std::move(done);
        other(7);
        CHECK(got == "z7");
    }
    CHECK(*destroyed == 1);
}

TEST_CASE(
    "inline callback: a larger room keeps another callback and a pointer, as Proxy::Deliver") {
    // The router's delivery: the session's completion and the proxy's span, moved into the
    // proxy's coroutine and called once from there.
    auto session = std::make_shared<std::string>("session");
    auto destroyed = std::make_shared<int>(0);
    std::optional<std::string> got;
    {
        InlineCallback<std::optional<std::string>> done =
            [session, counter = DestroyCounter(destroyed), &got](std::optional<std::string>&& v) {
                got = *session + ":" + v.value_or("streamed");
            };
        InlineCallback<std::optional<std::string>, 80> deliver =
            [span = std::make_unique<int>(7),
             done = std::move(done)](std::optional<std::string>&& answer) mutable {
                if (answer) *answer += "/" + std::to_string(*span);
                done(std::move(answer));
            };
        static_assert(sizeof(deliver) > sizeof(done));
        InlineCallback<std::optional<std::string>, 80> moved = std::move(deliver);
        CHECK_FALSE(deliver);
        moved(std::string("answer"));
        CHECK(got == "session:answer/7");
        moved(std::nullopt);
        CHECK(got == "session:streamed");
        CHECK(session.use_count() == 2);
        CHECK(*destroyed == 0);
    }
    CHECK(*destroyed == 1);
    CHECK(session.use_count() == 1);
}
