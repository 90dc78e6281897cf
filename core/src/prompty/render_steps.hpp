#pragma once
// The steps render() and render_segments() share (private to core/src/prompty).
#include <string>

#include "cmfpipe/core/prompty/render.hpp"

namespace cmfpipe::prompty::detail {

// Validated inputs -> what the template sees: rich inputs replaced by fresh placeholders, their
// values recorded in request.rich_inputs. Also draws the marker nonce when the agent is strict.
Json prepare_inputs(const Agent& agent, Json validated, RequestContext& request);

// What the renderer does with the author's role markers.
enum class AuthorMarkers {
    marked,      // the parser's prepare_template first; strict: kept away from the renderer
    as_written,  // the template as the author wrote it (renderSegments: nothing is parsed)
};

// The renderer, after prepare_template when `marked` and there is a parser; in strict mode the
// author markers go around the renderer as tokens (author_marker_tokens.hpp). Renderer errors are
// located in the agent's file. `parser_options` is parser_options(agent) when `marked` (built
// once per request by the caller, which hands the same to the parse step).
std::string run_renderer(const Invokers& invokers, const Agent& agent, const Json& prepared,
                         RequestContext& request, const RenderOptions& options,
                         AuthorMarkers author_markers, const Json& parser_options = Json());

// parser_options(agent): the invokers' cached copy when they were made for `agent`, else built
// into `built`.
const Json& parser_options_of(const Invokers& invokers, const Agent& agent, Json& built);

// render() with the request's parser options already built (prepare builds them once for both
// of its steps).
RenderResult render_with(const Invokers& invokers, const Agent& agent, const Json& inputs,
                         const RenderOptions& options, const Json& parser_options);

}  // namespace cmfpipe::prompty::detail
