// same_text (plugins/jinja2/text.hpp), the engine's inline string equality: every length through
// the word-sized paths and memcmp's, equal strings and strings differing at each position.
#include <catch2/catch.hpp>

#include <string>

#include "text.hpp"

using namespace cmfpipe::jinja2;

TEST_CASE("jinja2 same_text: equal at every length, unequal wherever one byte differs") {
    for (std::size_t n = 0; n <= 40; ++n) {
        std::string a(n, 'x');
        for (std::size_t i = 0; i < n; ++i) a[i] = static_cast<char>('a' + i % 26);
        std::string b = a;
        CHECK(same_text(a, b));
        for (std::size_t i = 0; i < n; ++i) {
            std::string c = a;
            c[i] = static_cast<char>(c[i] ^ 0x20);
            CHECK_FALSE(same_text(a, c));
        }
        CHECK_FALSE(same_text(a, a + "y"));
    }
    CHECK(same_text("", ""));
    CHECK_FALSE(same_text("role", "rolf"));
    CHECK_FALSE(same_text("content\xC3\xA9", "content\xC3\xA8"));
}
