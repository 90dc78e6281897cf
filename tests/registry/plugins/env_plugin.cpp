// Test plugin found only through CMFPIPE_PLUGIN_PATH: renderer "reverse".
#include "cmfpipe/plugin.hpp"

namespace {
class Reverse final : public cmfpipe::Renderer {
  public:
    std::string render(std::string_view t, const cmfpipe::Json&,
                       const cmfpipe::Json&) const override {
        return std::string(t.rbegin(), t.rend());
    }
};
void register_kinds(cmfpipe::Registrar& r) {
    r.add_renderer("reverse", [](const cmfpipe::Json&) { return std::make_unique<Reverse>(); });
}
}  // namespace

CMFPIPE_PLUGIN(reverse, "0.1.0", register_kinds)
