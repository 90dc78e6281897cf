#pragma once
// The plugin's JSON options -> the engine's RenderOptions, with type errors reported by name.
#include "cmfpipe/json.hpp"
#include "engine.hpp"

namespace cmfpipe::mustache {

// `options` may be null or an object. Keys: template_name (string), partials (object of
// strings), strict (bool), escape ("html" | "none"), max_depth (integer >= 1). Other keys are
// ignored (hosts pass options meant for any renderer). The result points into `options`.
RenderOptions read_render_options(const Json& options);

// Factory configuration: cache_size (integer >= 0, default 256).
std::size_t read_cache_size(const Json& config);

}  // namespace cmfpipe::mustache
