// Per-render options the plugin reads on every call: `now` (what strftime_now sees) in the
// spellings read digit by digit and in those left to sscanf, and the compiled-template cache
// staying right while a small capacity evicts.
#include <catch2/catch.hpp>
#include <ctime>

#include "jinja2_support.hpp"

using cmfpipe::Json;
using namespace cmfpipe::testing;

namespace {

Outcome render_now(const Json& now) {
    Json options = chat_options();
    options["now"] = now;
    return render_outcome(*jinja2_renderer(), "{{ strftime_now('%Y-%m-%d %H:%M:%S %a %j') }}",
                          Json::object(), options);
}

}  // namespace

TEST_CASE("jinja2 option now: dates and datetimes, read digit by digit or by sscanf") {
    CHECK(render_now("2024-07-26").text == "2024-07-26 00:00:00 Fri 208");
    CHECK(render_now("2024-07-26T09:05:07").text == "2024-07-26 09:05:07 Fri 208");
    CHECK(render_now("2024-07-26 09:05:07").text == "2024-07-26 09:05:07 Fri 208");
    // not the two plain spellings: sscanf reads what it can, as before
    CHECK(render_now("2024-07-26T09:05").text == "2024-07-26 09:05:00 Fri 208");
    CHECK(render_now("2024-07-26T09:05:07.250Z").text == "2024-07-26 09:05:07 Fri 208");
    CHECK(render_now("2024-7-6").text == "2024-07-06 00:00:00 Sat 188");
}

TEST_CASE("jinja2 without a now option: strftime_now reads the local clock, once a render") {
    // The clock is read at the first strftime_now (a render without one never reads it): two
    // calls in one render give the same second.
    Json without_now = chat_options();
    without_now.erase("now");
    const std::time_t before = std::time(nullptr);
    Outcome o = render_outcome(*jinja2_renderer(),
                               "{{ strftime_now('%Y-%m-%d %H:%M:%S') }}|"
                               "{{ strftime_now('%Y-%m-%d %H:%M:%S') }}",
                               Json::object(), without_now);
    const std::time_t after = std::time(nullptr);
    REQUIRE(o.text.size() == 39);
    CHECK(o.text.substr(0, 19) == o.text.substr(20));
    auto local = [](std::time_t at) {
        std::tm t{};
        localtime_r(&at, &t);
        char text[32];
        std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &t);
        return std::string(text);
    };
    const std::string shown = o.text.substr(0, 19);
    CHECK((shown >= local(before) && shown <= local(after)));
    Json options = chat_options();
    options["now"] = nullptr;  // null is no option: the clock too
    CHECK(render_outcome(*jinja2_renderer(), "{{ strftime_now('%Y') }}", Json::object(), options)
              .text == local(std::time(nullptr)).substr(0, 4));
}

TEST_CASE("jinja2 option now: a format longer than four bytes a byte is not cut to nothing") {
    // Wednesday: 9 bytes for each 2 of %A; strftime reports a short buffer as an empty result
    std::string days;
    for (int i = 0; i < 200; ++i) days += "%A";
    Json options = chat_options();
    options["now"] = "2024-07-24";
    Outcome o = render_outcome(*jinja2_renderer(), "{{ strftime_now('" + days + "') }}",
                               Json::object(), options);
    std::string expected;
    for (int i = 0; i < 200; ++i) expected += "Wednesday";
    CHECK(o.text == expected);
    Outcome empty =
        render_outcome(*jinja2_renderer(), "[{{ strftime_now('') }}]", Json::object(), options);
    CHECK(empty.text == "[]");
}

TEST_CASE("jinja2 option now: what is no ISO datetime or out of range is refused") {
    Outcome bad = render_now("26/07/2024");
    CHECK(bad.error_kind == "ValueError");
    CHECK(bad.error_message == "jinja2 option 'now': '26/07/2024' is not an ISO datetime");
    Outcome no_time = render_now("2024-07-26Tnoon");
    CHECK(no_time.error_message == "jinja2 option 'now': '2024-07-26Tnoon' is not an ISO datetime");
    Outcome month = render_now("2024-13-01");
    CHECK(month.error_kind == "ValueError");
    CHECK(month.error_message == "jinja2 option 'now': '2024-13-01' is out of range");
    Outcome hour = render_now("2024-07-26T24:00:00");
    CHECK(hour.error_message == "jinja2 option 'now': '2024-07-26T24:00:00' is out of range");
}

TEST_CASE("jinja2 cache: a capacity of 2 keeps serving the right template while it evicts") {
    auto renderer = jinja2_renderer(Json{{"cache_size", 2}});
    Json vars = {{"x", "v"}};
    for (int round = 0; round < 3; ++round) {
        for (int t = 0; t < 5; ++t) {
            std::string tpl = "{{ x }}#" + std::to_string(t);
            CHECK(renderer->render(tpl, vars, chat_options()) == "v#" + std::to_string(t));
            // a failing one, under its own name: the excerpt is its own source
            Outcome o = render_outcome(*renderer, tpl + "{{ x.y.z }}", vars,
                                       chat_options("t" + std::to_string(t)));
            CHECK(o.error_kind == "ValueError");
            CHECK(o.error_message == "UndefinedError: 'str object' has no attribute 'y'\n    " +
                                         tpl + "{{ x.y.z }}\n" + std::string(19, ' ') + "^");
        }
    }
}
