// Test plugin linked statically into the test executable (CMFPIPE_PLUGIN_STATIC): renderer "echo".
#include "cmfpipe/plugin.hpp"

namespace {
class Echo final : public cmfpipe::Renderer {
  public:
    std::string render(std::string_view t, const cmfpipe::Json&,
                       const cmfpipe::Json&) const override {
        return "echo:" + std::string(t);
    }
};
void register_kinds(cmfpipe::Registrar& r) {
    r.add_renderer("echo", [](const cmfpipe::Json&) { return std::make_unique<Echo>(); });
}
}  // namespace

CMFPIPE_PLUGIN(echo, "0.1.0", register_kinds)
