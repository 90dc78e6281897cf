// Test plugin whose renderer, parser and adapter throw what no plugin should: an int (not even a
// std::exception) from render, parse, to_wire and from_wire; a std::runtime_error from the
// renderer "kaboom"; and a cmfpipe::ValueError, which must reach the user unchanged, from the
// renderer "value_error".
#include <stdexcept>

#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/plugin.hpp"

namespace {

class IntRenderer final : public cmfpipe::Renderer {
  public:
    std::string render(std::string_view, const cmfpipe::Json&,
                       const cmfpipe::Json&) const override {
        throw 42;
    }
};

class KaboomRenderer final : public cmfpipe::Renderer {
  public:
    std::string render(std::string_view, const cmfpipe::Json&,
                       const cmfpipe::Json&) const override {
        throw std::runtime_error("kaboom");
    }
};

class ValueErrorRenderer final : public cmfpipe::Renderer {
  public:
    std::string render(std::string_view, const cmfpipe::Json&,
                       const cmfpipe::Json&) const override {
        throw cmfpipe::ValueError("no such filter 'shout'", {"template.txt", 1, 4});
    }
};

class IntParser final : public cmfpipe::Parser {
  public:
    std::vector<cmfpipe::cmf::Message> parse(std::string_view, const cmfpipe::Json&,
                                             const cmfpipe::RequestContext&) const override {
        throw 42;
    }
};

class IntAdapter final : public cmfpipe::Adapter {
  public:
    cmfpipe::Json to_wire(const std::vector<cmfpipe::cmf::Message>&, const cmfpipe::Json&,
                          const cmfpipe::Json&) const override {
        throw 42;
    }
    std::vector<cmfpipe::cmf::Message> from_wire(std::string_view,
                                                 const cmfpipe::Json&) const override {
        throw 42;
    }
};

void register_kinds(cmfpipe::Registrar& r) {
    r.add_renderer("thrower", [](const cmfpipe::Json&) { return std::make_unique<IntRenderer>(); });
    r.add_renderer("kaboom",
                   [](const cmfpipe::Json&) { return std::make_unique<KaboomRenderer>(); });
    r.add_renderer("value_error",
                   [](const cmfpipe::Json&) { return std::make_unique<ValueErrorRenderer>(); });
    r.add_parser("thrower", [](const cmfpipe::Json&) { return std::make_unique<IntParser>(); });
    r.add_adapter("thrower", [](const cmfpipe::Json&) { return std::make_unique<IntAdapter>(); });
}

}  // namespace

CMFPIPE_PLUGIN(thrower, "0.1.0", register_kinds)
