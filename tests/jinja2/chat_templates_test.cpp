// Conformance: 42 real chat templates x 4 contexts against Python Jinja2 3.1.6 goldens
// (corpus/chat-templates). A .txt golden must match byte for byte; an .error golden must raise
// a ValueError whose message starts with the golden's "Type: message".
#include <catch2/catch.hpp>

#include <algorithm>
#include <iostream>
#include <vector>

#include "jinja2_support.hpp"
#include "support/corpus.hpp"

namespace fs = std::filesystem;
using cmfpipe::Json;
using namespace cmfpipe::testing;

namespace {

struct Case {
    std::string tpl, ctx;
    fs::path golden;
    bool expect_error;
};

std::vector<Case> corpus_cases(const fs::path& dir) {
    std::vector<Case> cases;
    for (const auto& entry : fs::directory_iterator(dir / "goldens")) {
        std::string file = entry.path().filename().string();
        bool error = entry.path().extension() == ".error";
        std::string stem = entry.path().stem().string();  // NAME.CTX
        auto dot = stem.rfind('.');
        cases.push_back({stem.substr(0, dot), stem.substr(dot + 1), entry.path(), error});
    }
    std::sort(cases.begin(), cases.end(),
              [](const Case& a, const Case& b) { return a.golden < b.golden; });
    return cases;
}

// Returns "" when the case passes, else a description of the difference.
std::string check(const fs::path& dir, const Case& c) {
    auto renderer = jinja2_renderer();
    std::string tpl = read_file(dir / "templates" / (c.tpl + ".jinja"));
    Json vars = Json::parse(read_file(dir / "contexts" / (c.ctx + ".json")));
    std::string golden = read_file(c.golden);
    Outcome o = render_outcome(*renderer, tpl, vars, chat_options(c.tpl + ".jinja"));
    if (c.expect_error) {
        std::string want = golden.substr(0, golden.find('\n'));
        if (o.ok) return "expected error '" + want + "' but rendered:\n" + o.text;
        if (o.error_kind != "ValueError")
            return "expected ValueError, got " + o.error_kind + ": " + o.error_message;
        if (o.error_message.rfind(want, 0) != 0)
            return "error message differs:\n  want: " + want + "\n  got:  " + o.error_message;
        return "";
    }
    if (!o.ok) return "expected a render, got " + o.error_kind + ": " + o.error_message;
    if (o.text != golden) {
        std::size_t at = 0;
        while (at < o.text.size() && at < golden.size() && o.text[at] == golden[at]) ++at;
        std::size_t from = at > 80 ? at - 80 : 0;
        return "render differs at byte " + std::to_string(at) +
               "\n  want: " + Json(golden.substr(from, 160)).dump() +
               "\n  got:  " + Json(o.text.substr(from, 160)).dump();
    }
    return "";
}

}  // namespace

TEST_CASE("jinja2 chat-templates: every template x context matches its Python Jinja2 golden") {
    fs::path dir = require_corpus("chat-templates");
    static const std::vector<Case> cases = corpus_cases(dir);
    REQUIRE(cases.size() == 168);
    for (const auto& c : cases) {
        DYNAMIC_SECTION(c.tpl << " x " << c.ctx << (c.expect_error ? " (raises)" : "")) {
            std::string problem = check(dir, c);
            INFO(problem);
            CHECK(problem.empty());
        }
    }
}

TEST_CASE("jinja2 chat-templates: summary count") {
    fs::path dir = require_corpus("chat-templates");
    auto cases = corpus_cases(dir);
    std::size_t passed = 0;
    for (const auto& c : cases) {
        std::string problem = check(dir, c);
        if (problem.empty())
            ++passed;
        else
            std::cout << "FAIL " << c.tpl << " x " << c.ctx << ": " << problem << "\n";
    }
    std::cout << "chat-templates: " << passed << "/" << cases.size() << "\n";
    CHECK(passed == cases.size());
}
