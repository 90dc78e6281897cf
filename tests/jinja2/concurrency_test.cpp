// One renderer instance, many threads: renders are re-entrant and the compiled-template cache
// is shared safely (every thread gets exactly the single-threaded result).
#include <catch2/catch.hpp>

#include <thread>
#include <vector>

#include "jinja2_support.hpp"

using cmfpipe::Json;
using namespace cmfpipe::testing;

TEST_CASE("jinja2 threads: 8 threads x 200 renders of 4 templates give identical results") {
    auto renderer = jinja2_renderer();
    const std::vector<std::string> templates = {
        "{% for m in messages %}<{{ m.role }}>{{ m.content|trim }}{% endfor %}",
        "{% set ns = namespace(n=0) %}{% for m in messages %}{% set ns.n = ns.n + m.content|length "
        "%}{% endfor %}{{ ns.n }}",
        "{% macro r(m) %}[{{ m.role|upper }}]{% endmacro %}{% for m in messages %}{{ r(m) }}{% "
        "endfor %}{{ messages|tojson }}",
        "{{ messages|map(attribute='role')|unique|join(',') }}|{{ messages|selectattr('role', "
        "'eq', 'user')|list|length }}",
    };
    Json vars = {
        {"messages",
         {{{"role", "user"}, {"content", " hi "}}, {{"role", "assistant"}, {"content", "yo"}}}}};
    std::vector<std::string> expected;
    for (const auto& t : templates) expected.push_back(renderer->render(t, vars, chat_options()));
    CHECK(expected[0] == "<user>hi<assistant>yo");
    CHECK(expected[1] == "6");
    std::vector<int> mismatches(8, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 200; ++i) {
                std::size_t k = static_cast<std::size_t>(i + t) % templates.size();
                if (renderer->render(templates[k], vars, chat_options()) != expected[k])
                    ++mismatches[static_cast<std::size_t>(t)];
            }
        });
    }
    for (auto& th : threads) th.join();
    for (int m : mismatches) CHECK(m == 0);
}
