// Checked with the sdk's strict reader, so the messages read like every other option check:
// "mustache options: strict: expected a boolean, got string".
#include "options.hpp"

#include <cstdint>
#include <limits>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/json_reader.hpp"

namespace cmfpipe::mustache {

RenderOptions read_render_options(const Json& options, const Limits& defaults) {
    RenderOptions o;
    o.limits = defaults;
    if (options.is_null()) return o;
    const JsonReader r("mustache options", options, "");
    r.object();
    if (auto name = r.optional_string("template_name")) o.template_name = *name;
    if (auto partials = r.find("partials")) o.partials = &partials->object().json();
    o.strict = r.boolean_or("strict", o.strict);
    if (auto escape = r.find("escape")) {
        const std::string& name = escape->string();
        if (name == "html") {
            o.escape = Escape::html;
        } else if (name == "none") {
            o.escape = Escape::none;
        } else {
            escape->fail("expected \"html\" or \"none\", got " + json_quoted(name));
        }
    }
    if (auto limits = r.find("limits")) o.limits = read_limits(limits->json(), defaults);
    // The older spelling of limits.max_depth, kept as a top-level option.
    if (auto depth = r.find("max_depth"))
        o.limits.max_depth = static_cast<int>(depth->integer_in(1, Limits::depth_ceiling));
    return o;
}

Limits read_default_limits(const Json& config) {
    if (!config.is_object()) return {};
    auto limits = config.find("limits");
    return limits == config.end() ? Limits{} : read_limits(*limits);
}

std::size_t read_cache_size(const Json& config) {
    if (!config.is_object()) return 256;
    auto size = JsonReader("mustache options", config, "").find("cache_size");
    if (!size) return 256;
    return static_cast<std::size_t>(size->integer_in(0, std::numeric_limits<std::int64_t>::max()));
}

}  // namespace cmfpipe::mustache
