// `cmfpipe analyze-template FILE.jinja`, the real executable: it prints, through the registry's
// `chat_template_analysis` renderer kind, exactly the analysis the library finds, and its errors
// name the template file.
#include <catch2/catch.hpp>

#include "chat_template_support.hpp"
#include "support/process.hpp"
#include "template_analysis.hpp"

namespace fs = std::filesystem;
using cmfpipe::Json;
using namespace cmfpipe::testing;

TEST_CASE("analyze-template prints the template's analysis as JSON", "[analysis]") {
    const fs::path file = require_corpus("chat-templates") / "templates" / "Qwen3-Coder.jinja";
    auto result = run_cli("analyze-template", file.string(), "--eos-token", "<|im_end|>");
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    CHECK(result.err.empty());
    const Json printed = cmfpipe::parse_json(result.out, "stdout");
    // The same as the library's own analysis with the same inputs.
    const auto renderer = bundled_plugins().make_renderer("jinja2");
    cmfpipe::chat_template::AnalysisInputs inputs;
    inputs.template_text = read_bytes(file);
    inputs.eos_token = "<|im_end|>";
    CHECK(printed == to_json(cmfpipe::chat_template::analyze_template(*renderer, inputs)));
    CHECK(printed["tools"]["format"] == "tag_with_tagged");
    CHECK(printed["tools"]["function"]["name_prefix"] == "<function=");
    CHECK(result.out.back() == '\n');
}

TEST_CASE("analyze-template names the template file when the template cannot be analysed",
          "[analysis]") {
    const fs::path file =
        fs::path(CMFPIPE_SOURCE_DIR) / "tests" / "chat_template" / "fixtures" / "raises.jinja";
    auto result = run_cli("analyze-template", file.string());
    CHECK(result.exit_code == 1);
    CHECK(result.out.empty());
    CHECK_THAT(result.err,
               Catch::StartsWith("cmfpipe: ValueError: chat_template: the template cannot render "
                                 "a user's turn, so it cannot be analysed: " +
                                 file.string() + ":1:4: "));
}

TEST_CASE("analyze-template refuses variables the analysis sets itself", "[analysis]") {
    const fs::path file =
        fs::path(CMFPIPE_SOURCE_DIR) / "tests" / "chat_template" / "fixtures" / "turns.jinja";
    auto result = run_cli("analyze-template", file.string(), "--var", "messages=[]");
    CHECK(result.exit_code == 1);
    CHECK(result.err ==
          "cmfpipe: ValueError: chat_template_analysis variables: $.messages: "
          "'messages' is set by the analysis itself\n");
}
