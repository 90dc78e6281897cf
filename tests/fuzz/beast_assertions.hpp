#pragma once
// Boost's assertion handler for the targets that drive Beast's HTTP parser (built with
// BOOST_ENABLE_ASSERT_HANDLER; include this from the one source of such a target). Every failed
// assertion aborts, as assert() would, but one: Beast 1.74's parse_chunk_header asserts n >= 5
// when it is called again in the final chunk's state, and a final chunk whose CRLFs arrive a byte
// at a time ("0\r\n", then "\r", then "\n": what a slow client or upstream sends) calls it with 4.
// The code after the assertion handles that (it asks for more), and Beast itself corrected the
// assertion to n >= 3 (boostorg/beast pull request 2861, Boost 1.86). Release builds compile
// assertions out, so only an assertion-enabled build ever stops there.
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace boost {

inline bool known_false_beast_assertion(char const* expr, char const* file) {
    return std::strcmp(expr, "n >= 5") == 0 &&
           std::strstr(file, "beast/http/impl/basic_parser.ipp");
}

void assertion_failed(char const* expr, char const* function, char const* file, long line) {
    if (known_false_beast_assertion(expr, file)) return;
    std::fprintf(stderr, "%s:%ld: %s: Assertion '%s' failed.\n", file, line, function, expr);
    std::abort();
}

void assertion_failed_msg(char const* expr, char const* msg, char const* function, char const* file,
                          long line) {
    if (known_false_beast_assertion(expr, file)) return;
    std::fprintf(stderr, "%s:%ld: %s: Assertion '%s' failed: %s.\n", file, line, function, expr,
                 msg);
    std::abort();
}

}  // namespace boost
