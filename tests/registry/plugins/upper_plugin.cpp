// Test plugin: renderer "upper" (the template upper-cased, {{name}} replaced) and processor "noop".
#include <algorithm>
#include <cctype>

#include "cmfpipe/plugin.hpp"

namespace {

class UpperRenderer final : public cmfpipe::Renderer {
  public:
    explicit UpperRenderer(std::string suffix) : suffix_(std::move(suffix)) {}
    std::string render(std::string_view text, const cmfpipe::Json& inputs,
                       const cmfpipe::Json&) const override {
        std::string out(text);
        const std::string marker = "{{name}}";
        if (auto at = out.find(marker); at != std::string::npos && inputs.contains("name")) {
            out.replace(at, marker.size(), inputs["name"].get<std::string>());
        }
        std::transform(out.begin(), out.end(), out.begin(),
                       [](unsigned char c) { return std::toupper(c); });
        return out + suffix_;
    }

  private:
    std::string suffix_;
};

class NoopProcessor final : public cmfpipe::Processor {
    cmfpipe::ProcessorResult process(const cmfpipe::cmf::Message&,
                                     const cmfpipe::ProcessorContext&) const override {
        return cmfpipe::ProcessorResult::allow();
    }
};

void register_kinds(cmfpipe::Registrar& r) {
    r.add_renderer("upper", [](const cmfpipe::Json& config) {
        if (config.contains("fail")) throw std::runtime_error("bad config");
        return std::make_unique<UpperRenderer>(config.value("suffix", ""));
    });
    r.add_processor("noop", [](const cmfpipe::Json&) { return std::make_unique<NoopProcessor>(); });
}

}  // namespace

CMFPIPE_PLUGIN(upper, "1.2.3", register_kinds)
