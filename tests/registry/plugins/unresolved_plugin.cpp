// Test plugin that references a symbol nothing defines; built without --no-undefined on purpose,
// so the dynamic loader (RTLD_NOW) refuses it.
#include "cmfpipe/plugin.hpp"

extern "C" int cmfpipe_test_symbol_that_does_not_exist();

namespace {
class Broken final : public cmfpipe::Renderer {
  public:
    std::string render(std::string_view, const cmfpipe::Json&,
                       const cmfpipe::Json&) const override {
        return std::to_string(cmfpipe_test_symbol_that_does_not_exist());
    }
};
void register_kinds(cmfpipe::Registrar& r) {
    r.add_renderer("unresolved", [](const cmfpipe::Json&) { return std::make_unique<Broken>(); });
}
}  // namespace

CMFPIPE_PLUGIN(unresolved, "0.1.0", register_kinds)
