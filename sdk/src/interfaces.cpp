// Out-of-line destructors: they anchor each interface's vtable and type information in
// libcmfpipe_sdk.so, so host and plugins agree on one copy.
#include "cmfpipe/adapter.hpp"
#include "cmfpipe/parser.hpp"
#include "cmfpipe/plugin.hpp"
#include "cmfpipe/processor.hpp"
#include "cmfpipe/renderer.hpp"

namespace cmfpipe {

Renderer::~Renderer() = default;
Parser::~Parser() = default;
Adapter::~Adapter() = default;
Processor::~Processor() = default;
Registrar::~Registrar() = default;

bool Parser::matches_role_marker(std::string_view, MarkerFit) const {
    return false;
}

std::string Parser::prepare_template(std::string_view template_text, const Json&,
                                     RequestContext&) const {
    return std::string(template_text);
}

}  // namespace cmfpipe
