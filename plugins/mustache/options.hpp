#pragma once
// The plugin's JSON options -> the engine's RenderOptions, with type errors reported by name.
#include "cmfpipe/json.hpp"
#include "engine.hpp"

namespace cmfpipe::mustache {

// `options` may be null or an object. Keys: template_name (string), partials (object of
// strings), strict (bool), escape ("html" | "none"), limits (object, limits.hpp, over
// `defaults`), max_depth (integer from 1 to Limits::depth_ceiling, the same as limits.max_depth).
// Other keys are ignored (hosts pass options meant for any renderer). The result points into
// `options`.
RenderOptions read_render_options(const Json& options, const Limits& defaults = {});

// Factory configuration: cache_size (integer >= 0, default 256), limits (the defaults of every
// render, as in the options).
std::size_t read_cache_size(const Json& config);
Limits read_default_limits(const Json& config);

}  // namespace cmfpipe::mustache
