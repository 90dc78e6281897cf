// The whole official mustache spec: every JSON case through the real `mustache` plugin (found by
// Registry::discover), and the lambda cases through the engine library with C++ lambdas.
#include <catch2/catch.hpp>

#include <iostream>
#include <map>

#include "cmfpipe/errors.hpp"
#include "engine.hpp"
#include "spec_cases.hpp"
#include "spec_lambdas.hpp"
#include "support/registry.hpp"

using cmfpipe::Json;
using namespace cmfpipe::testing;

namespace {

bool is_lambda_case(const SpecCase& c) {
    return c.file == "~lambdas.json";
}

std::string render_with_plugin(const cmfpipe::Renderer& renderer, const SpecCase& c) {
    Json options = {{"partials", c.partials}, {"template_name", c.file + " / " + c.name}};
    return renderer.render(c.template_text, c.data, options);
}

std::string render_with_lambdas(const cmfpipe::mustache::Engine& engine, const SpecCase& c) {
    auto maker = spec_lambdas().find(c.name);
    if (maker == spec_lambdas().end())
        FAIL("no C++ transcription of the spec lambda for '" << c.name << "'");
    Lambdas lambdas = maker->second();
    Json data = c.data;
    data.erase("lambda");  // the code in several languages; the C++ lambda takes its place
    cmfpipe::mustache::RenderOptions options;
    options.partials = &c.partials;
    options.lambdas = &lambdas;
    options.template_name = c.file + " / " + c.name;
    return engine.render(c.template_text, data, options);
}

}  // namespace

TEST_CASE(
    "mustache spec: all 194 cases of all 9 files, through the plugin (lambdas through the "
    "engine)") {
    auto files = spec_files();
    const auto& registry = cmfpipe::testing::bundled_plugins();
    REQUIRE(registry.has(cmfpipe::PluginType::renderer, "mustache"));
    auto renderer = registry.make_renderer("mustache");
    cmfpipe::mustache::Engine engine;

    int passed = 0, total = 0, through_plugin = 0;
    std::map<std::string, std::pair<int, int>> per_file;
    for (const auto& file : files) {
        for (const SpecCase& c : spec_cases(file)) {
            INFO(c.file << " / " << c.name << "\ntemplate: " << Json(c.template_text).dump()
                        << "\ndata: " << c.data.dump() << "\npartials: " << c.partials.dump());
            std::string got;
            try {
                if (is_lambda_case(c)) {
                    got = render_with_lambdas(engine, c);
                } else {
                    got = render_with_plugin(*renderer, c);
                    ++through_plugin;
                }
            } catch (const cmfpipe::Error& e) {
                FAIL_CHECK("threw " << e.kind() << ": " << e.what());
                got = "<error>";
            }
            CHECK(Json(got).dump() == Json(c.expected).dump());
            ++total;
            ++per_file[c.file].second;
            if (got == c.expected) {
                ++passed;
                ++per_file[c.file].first;
            }
        }
    }
    for (const auto& [file, counts] : per_file) {
        std::cout << "  " << file << ": " << counts.first << "/" << counts.second << "\n";
    }
    std::cout << "mustache spec: " << passed << "/" << total << " (" << through_plugin
              << " through the plugin, " << total - through_plugin
              << " lambda cases through the engine)\n";
    CHECK(per_file.size() == 9);
    CHECK(total == 194);
    CHECK(through_plugin == 184);
    CHECK(passed == total);
}
