// The Prompty spec's Renderer.render vectors for engine "jinja2" (corpus/prompty/vectors.json),
// through the plugin's default profile (prompty). Vectors that need rich inputs (thread nonces)
// belong to the core's render step and are left to its tests.
#include <catch2/catch.hpp>

#include <iostream>

#include "jinja2_support.hpp"
#include "support/corpus.hpp"

using cmfpipe::Json;
using namespace cmfpipe::testing;

TEST_CASE("jinja2 prompty vectors: Renderer.render with engine jinja2") {
    auto dir = require_corpus("prompty");
    Json all = Json::parse(read_file(dir / "vectors.json"));
    auto renderer = jinja2_renderer();
    std::size_t run = 0, passed = 0;
    for (const auto& v : all["vectors"]) {
        if (v.value("contract", "") != "Renderer" || v.value("operation", "") != "render") continue;
        const Json& vec = v["vector"];
        const Json& input = vec["input"];
        if (input.value("engine", "") != "jinja2" || !vec.contains("expected") ||
            !vec["expected"].contains("rendered"))
            continue;
        if (input.contains("input_kinds") || input.contains("kinds") ||
            vec.value("name", "") == "thread_nonce_injection")
            continue;
        ++run;
        std::string got;
        try {
            got = renderer->render(input["template"].get<std::string>(),
                                   input.value("inputs", Json::object()), Json::object());
        } catch (const cmfpipe::Error& e) {
            got = std::string("error: ") + e.what();
        }
        std::string want = vec["expected"]["rendered"].get<std::string>();
        INFO(vec["name"].get<std::string>());
        CHECK(got == want);
        if (got == want) ++passed;
    }
    std::cout << "prompty render vectors (jinja2): " << passed << "/" << run << "\n";
    CHECK(run >= 15);
}
