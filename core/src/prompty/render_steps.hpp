#pragma once
// The steps render() and render_segments() share (private to core/src/prompty).
#include <string>

#include "cmfpipe/core/prompty/render.hpp"

namespace cmfpipe::prompty::detail {

// Validated inputs -> what the template sees: rich inputs replaced by fresh placeholders, their
// values recorded in request.rich_inputs. Also draws the marker nonce when the agent is strict.
Json prepare_inputs(const Agent& agent, Json validated, RequestContext& request);

// prepare_template (when there is a parser) + the renderer; renderer errors located in the file.
std::string run_renderer(const Invokers& invokers, const Agent& agent, const Json& prepared,
                         RequestContext& request, const RenderOptions& options);

}  // namespace cmfpipe::prompty::detail
