// Test plugin whose registration registers one kind and then throws: nothing may be kept.
#include <stdexcept>

#include "cmfpipe/plugin.hpp"

namespace {
class Never final : public cmfpipe::Renderer {
  public:
    std::string render(std::string_view, const cmfpipe::Json&,
                       const cmfpipe::Json&) const override {
        return {};
    }
};
void register_kinds(cmfpipe::Registrar& r) {
    r.add_renderer("half-registered",
                   [](const cmfpipe::Json&) { return std::make_unique<Never>(); });
    throw std::runtime_error("this plugin refuses to register");
}
}  // namespace

CMFPIPE_PLUGIN(throwing, "0.1.0", register_kinds)
