// The template analysis (plugins/chat_template/template_analysis.hpp) over the corpus's chat
// templates, rendered by the bundled jinja2 renderer as the adapter renders them:
//   - every template is analysed without an error;
//   - the markers found for well-known families, exactly;
//   - the diff split and the cache on their own.
// CMFPIPE_ANALYSIS_DUMP=FILE writes the whole table (template -> analysis JSON) for reading.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <thread>

#include "analysis_cache.hpp"
#include "chat_template_support.hpp"
#include "diff_split.hpp"
#include "template_analysis.hpp"

namespace fs = std::filesystem;
using cmfpipe::Json;
using namespace cmfpipe::chat_template;
using namespace cmfpipe::testing;

namespace {

const cmfpipe::Renderer& jinja2() {
    static const std::shared_ptr<cmfpipe::Renderer> renderer =
        bundled_plugins().make_renderer("jinja2");
    return *renderer;
}

// The variables a template needs beyond transformers' (firefunction v2 reads its tools as the
// JSON text `functions`, and `datetime`).
Json variables_for(const std::string& name) {
    if (name == "fireworks-ai-llama-3-firefunction-v2")
        return Json{{"functions", "[]"}, {"datetime", "Jul 26 2024"}};
    return Json::object();
}

Json analysis_of(const std::string& name, const std::string& bos = "",
                 const std::string& eos = "") {
    return to_json(analyze_template(
        jinja2(), AnalysisInputs{corpus_template(name), bos, eos, variables_for(name)}));
}

}  // namespace

TEST_CASE("analysis: every corpus template is analysed without an error", "[analysis]") {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(require_corpus("chat-templates") / "templates"))
        if (entry.path().extension() == ".jinja") names.push_back(entry.path().stem().string());
    std::sort(names.begin(), names.end());
    REQUIRE(names.size() == 42);
    Json table = Json::object();
    for (const std::string& name : names) {
        INFO(name);
        Json analysis;
        REQUIRE_NOTHROW(analysis = analysis_of(name, "<s>", "</s>"));
        table[name] = analysis;
    }
    if (const char* dump = std::getenv("CMFPIPE_ANALYSIS_DUMP"))
        std::ofstream(dump) << table.dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
}
