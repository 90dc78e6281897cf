// Test plugin that uses other kinds through the host (cmfpipe/host_services.hpp), never by
// linking them:
//   renderer "framed"  renders through the renderer of config "inner" (default jinja2), in [ ]
//   renderer "thrower" throws a std::runtime_error (not a cmfpipe::Error) from render
//   renderer "cycle"   obtains itself
//   adapter  "framed"  to_wire: the messages' text rendered as a template by config "inner"
//   processor "passes" answers through the processor of config "inner"
#include <stdexcept>

#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/plugin.hpp"

namespace {

using cmfpipe::Json;

std::string inner_kind(const Json& config, const char* fallback) {
    return config.is_object() ? config.value("inner", fallback) : fallback;
}

class FramedRenderer final : public cmfpipe::Renderer {
  public:
    explicit FramedRenderer(std::shared_ptr<cmfpipe::Renderer> inner) : inner_(std::move(inner)) {}
    std::string render(std::string_view text, const Json& inputs,
                       const Json& options) const override {
        return "[" + inner_->render(text, inputs, options) + "]";
    }

  private:
    std::shared_ptr<cmfpipe::Renderer> inner_;
};

class Thrower final : public cmfpipe::Renderer {
  public:
    std::string render(std::string_view, const Json&, const Json&) const override {
        throw std::runtime_error("thrower gave up");
    }
};

class FramedAdapter final : public cmfpipe::Adapter {
  public:
    explicit FramedAdapter(std::shared_ptr<cmfpipe::Renderer> inner) : inner_(std::move(inner)) {}
    Json to_wire(const std::vector<cmfpipe::cmf::Message>& messages, const Json& agent,
                 const Json&) const override {
        std::string text;
        for (const auto& m : messages) text += m.text_content();
        return inner_->render(text, agent, Json::object());
    }
    std::vector<cmfpipe::cmf::Message> from_wire(std::string_view, const Json&) const override {
        return {};
    }

  private:
    std::shared_ptr<cmfpipe::Renderer> inner_;
};

class Passes final : public cmfpipe::Processor {
  public:
    explicit Passes(std::shared_ptr<cmfpipe::Processor> inner) : inner_(std::move(inner)) {}
    cmfpipe::ProcessorResult process(const cmfpipe::cmf::Message& message,
                                     const cmfpipe::ProcessorContext& context) const override {
        return inner_->process(message, context);
    }

  private:
    std::shared_ptr<cmfpipe::Processor> inner_;
};

class ThrowsInt final : public cmfpipe::Processor {
  public:
    cmfpipe::ProcessorResult process(const cmfpipe::cmf::Message&,
                                     const cmfpipe::ProcessorContext&) const override {
        throw 42;
    }
};

void register_kinds(cmfpipe::Registrar& r) {
    const cmfpipe::HostServices& host = r.host();
    r.add_renderer("framed", [&host](const Json& config) {
        return std::make_unique<FramedRenderer>(
            host.renderer(inner_kind(config, "jinja2"), Json::object()));
    });
    r.add_renderer("thrower", [](const Json&) { return std::make_unique<Thrower>(); });
    r.add_renderer("cycle", [&host](const Json&) {
        return std::make_unique<FramedRenderer>(host.renderer("cycle", Json::object()));
    });
    r.add_adapter("framed", [&host](const Json& config) {
        return std::make_unique<FramedAdapter>(
            host.renderer(inner_kind(config, "jinja2"), Json::object()));
    });
    r.add_processor("passes", [&host](const Json& config) {
        return std::make_unique<Passes>(
            host.processor(inner_kind(config, "throws_int"), Json::object()));
    });
    r.add_processor("throws_int", [](const Json&) { return std::make_unique<ThrowsInt>(); });
}

}  // namespace

CMFPIPE_PLUGIN(host_user, "1.0.0", register_kinds)
