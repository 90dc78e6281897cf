// Test plugin that claims renderer "upper" again (and "lower", which must not register either).
#include "cmfpipe/plugin.hpp"

namespace {
class Same final : public cmfpipe::Renderer {
  public:
    std::string render(std::string_view t, const cmfpipe::Json&,
                       const cmfpipe::Json&) const override {
        return std::string(t);
    }
};
void register_kinds(cmfpipe::Registrar& r) {
    r.add_renderer("lower", [](const cmfpipe::Json&) { return std::make_unique<Same>(); });
    r.add_renderer("upper", [](const cmfpipe::Json&) { return std::make_unique<Same>(); });
}
}  // namespace

CMFPIPE_PLUGIN(upper_again, "0.0.1", register_kinds)
