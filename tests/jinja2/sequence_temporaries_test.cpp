// Filters that iterate a sequence made on the fly (a string's characters, a generator) keep that
// sequence alive while they iterate. Found by the fuzzer (tests/fuzz/regressions/jinja2/):
// `'a'|join` read freed memory, under ASan a heap-use-after-free, in the g++ build a nonsense
// error.
#include <catch2/catch.hpp>

#include "jinja2_support.hpp"

using cmfpipe::Json;
using namespace cmfpipe::testing;

namespace {

Outcome render(const std::string& tpl) {
    return render_outcome(*jinja2_renderer(), tpl, Json::object(), chat_options("t.jinja"));
}

}  // namespace

TEST_CASE("jinja2: filters over a string's characters iterate a sequence that stays alive") {
    CHECK(render("{{ 'abc'|join('-') }}").text == "a-b-c");
    CHECK(render("{{ 'abc'|join }}").text == "abc");
    CHECK(render("{{ 'cab'|sort|join }}").text == "abc");
    CHECK(render("{{ 'aab'|unique|join }}").text == "ab");
    CHECK(render("{{ 'abc'|map('upper')|join }}").text == "ABC");
    CHECK(render("{{ 'abc'|select('ne', 'b')|join }}").text == "ac");
    CHECK(render("{{ [3, 1]|reverse|sum }}").text == "4");
    CHECK(render("{{ 'b' in 'abc'|list }}").text == "True");
}

TEST_CASE("jinja2: the fuzzer's reproducer is a TypeError at its place") {
    const Outcome o = render("{{ [1] + 'a'|join }}");
    CHECK_FALSE(o.ok);
    CHECK(o.error_kind == "ValueError");
    CHECK(o.error_message ==
          "TypeError: can only concatenate list (not \"str\") to list\n"
          "    {{ [1] + 'a'|join }}\n"
          "           ^");
}
