#pragma once
// Shared by the pipeline tests: a registry over chosen plugin directories, a pipeline from YAML
// text, and a conversation whose extensions exercise every tier.
#include <filesystem>
#include <string>
#include <vector>

#include "cmfpipe/cmf/extensions.hpp"
#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/core/pipeline/config.hpp"
#include "cmfpipe/core/pipeline/messages_file.hpp"
#include "cmfpipe/core/pipeline/pipeline.hpp"
#include "cmfpipe/core/registry.hpp"
#include "support/registry.hpp"

namespace pipeline_test {

namespace fs = std::filesystem;
using cmfpipe::Json;
namespace cmf = cmfpipe::cmf;
namespace pl = cmfpipe::pipeline;

inline const fs::path adversarial_dir = fs::path(CMFPIPE_TEST_PLUGIN_DIR) / "pipeline";

// Only the directories given (no CMFPIPE_PLUGIN_PATH, no bundled directory unless asked).
inline cmfpipe::Registry registry(std::vector<fs::path> dirs, bool bundled = false) {
    return cmfpipe::testing::discover_plugins(std::move(dirs), bundled, !bundled);
}

inline pl::Pipeline pipeline(const std::string& yaml, const cmfpipe::Registry& reg) {
    return pl::Pipeline::build(pl::parse_pipeline_config(yaml, "test.yaml", "."), reg);
}

// A user message and an assistant message sharing one request-level extension record:
// labels {INTERNAL, SECRET}, subject alice (roles dev), header X-Request-ID, custom {k: v}.
inline std::vector<cmf::Message> conversation() {
    Json document = {
        {"messages",
         {{{"role", "user"}, {"content", {{{"content_type", "text"}, {"text", "hello"}}}}},
          {{"role", "assistant"}, {"content", {{{"content_type", "text"}, {"text", "hi"}}}}}}},
        {"extensions",
         {{"request", {{"environment", "prod"}, {"request_id", "r1"}}},
          {"http", {{"headers", {{"X-Request-ID", "r1"}}}}},
          {"security",
           {{"labels", {"INTERNAL", "SECRET"}},
            {"subject", {{"id", "alice"}, {"type", "user"}, {"roles", {"dev"}}}}}},
          {"custom", {{"k", "v"}}}}}};
    return pl::messages_from_document(document, "conversation");
}

// Decisions as JSON, for exact comparison.
inline Json decisions(const pl::PipelineResult& result) {
    Json out = Json::array();
    for (const auto& d : result.decisions) out.push_back(pl::to_json(d));
    return out;
}

}  // namespace pipeline_test
