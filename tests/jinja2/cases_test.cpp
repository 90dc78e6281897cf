// Conformance: corpus/jinja-cases/cases.json (186 cases) and our own cases in
// tests/jinja2/cases/*.json (generated with `jinja-oracle goldens`). `expected` must match
// exactly; `error` must raise a ValueError whose message starts with the recorded error.
#include <catch2/catch.hpp>

#include <iostream>

#include "jinja2_support.hpp"
#include "support/corpus.hpp"

namespace fs = std::filesystem;
using cmfpipe::Json;
using namespace cmfpipe::testing;

namespace {

std::string check_case(const Json& c) {
    auto renderer = jinja2_renderer();
    Json options = chat_options(c.value("name", "<case>"));
    if (c.contains("profile")) options["profile"] = c["profile"];
    Outcome o = render_outcome(*renderer, c["template"].get<std::string>(),
                               c.value("vars", Json::object()), options);
    if (c.contains("error")) {
        std::string want = c["error"].get<std::string>();
        if (o.ok) return "expected error '" + want + "', rendered " + Json(o.text).dump();
        if (o.error_kind != "ValueError")
            return "expected ValueError, got " + o.error_kind + ": " + o.error_message;
        if (o.error_message.rfind(want, 0) != 0)
            return "error differs\n  want: " + want + "\n  got:  " + o.error_message;
        return "";
    }
    std::string want = c["expected"].get<std::string>();
    if (!o.ok)
        return "expected " + Json(want).dump() + ", got " + o.error_kind + ": " + o.error_message;
    if (o.text != want) return "want " + Json(want).dump() + "\n got  " + Json(o.text).dump();
    return "";
}

void run_file(const fs::path& file, std::size_t expected_count) {
    Json cases = Json::parse(read_file(file));
    if (expected_count) REQUIRE(cases.size() == expected_count);
    std::size_t passed = 0;
    for (const auto& c : cases) {
        std::string problem = check_case(c);
        if (problem.empty()) {
            ++passed;
        } else {
            std::cout << "FAIL " << c["name"].get<std::string>() << ": " << problem << "\n";
        }
        INFO(c["name"].get<std::string>() << "\n  template: " << c["template"].dump() << "\n"
                                          << problem);
        CHECK(problem.empty());
    }
    std::cout << file.filename().string() << ": " << passed << "/" << cases.size() << "\n";
}

}  // namespace

TEST_CASE("jinja2 cases: corpus/jinja-cases/cases.json") {
    fs::path dir = require_corpus("jinja-cases");
    run_file(dir / "cases.json", 186);
}

TEST_CASE("jinja2 cases: our own oracle-generated cases (tests/jinja2/cases)") {
    fs::path dir = fs::path(CMFPIPE_SOURCE_DIR) / "tests" / "jinja2" / "cases";
    std::size_t files = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path().extension() != ".json") continue;
        ++files;
        SECTION(entry.path().filename().string()) {
            run_file(entry.path(), 0);
        }
    }
    CHECK(files > 0);
}
