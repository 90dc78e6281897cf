#include "options.hpp"

#include "cmfpipe/errors.hpp"

namespace cmfpipe::mustache {
namespace {

[[noreturn]] void bad(const std::string& key, const std::string& expected, const Json& got) {
    throw ValueError("mustache option '" + key + "' must be " + expected + ", got " + got.dump());
}

}  // namespace

RenderOptions read_render_options(const Json& options) {
    RenderOptions o;
    if (options.is_null()) return o;
    if (!options.is_object())
        throw ValueError("mustache options must be a JSON object, got " + options.dump());
    if (auto it = options.find("template_name"); it != options.end()) {
        if (!it->is_string()) bad("template_name", "a string", *it);
        o.template_name = it->get<std::string>();
    }
    if (auto it = options.find("partials"); it != options.end() && !it->is_null()) {
        if (!it->is_object()) bad("partials", "an object (name -> template)", *it);
        o.partials = &*it;
    }
    if (auto it = options.find("strict"); it != options.end()) {
        if (!it->is_boolean()) bad("strict", "true or false", *it);
        o.strict = it->get<bool>();
    }
    if (auto it = options.find("escape"); it != options.end()) {
        if (*it == "html")
            o.escape = Escape::html;
        else if (*it == "none")
            o.escape = Escape::none;
        else
            bad("escape", "\"html\" or \"none\"", *it);
    }
    if (auto it = options.find("max_depth"); it != options.end()) {
        if (!it->is_number_integer() || it->get<std::int64_t>() < 1 ||
            it->get<std::int64_t>() > 100000) {
            bad("max_depth", "an integer from 1 to 100000", *it);
        }
        o.max_depth = static_cast<int>(it->get<std::int64_t>());
    }
    return o;
}

std::size_t read_cache_size(const Json& config) {
    if (!config.is_object()) return 256;
    auto it = config.find("cache_size");
    if (it == config.end()) return 256;
    if (!it->is_number_integer() || it->get<std::int64_t>() < 0)
        bad("cache_size", "an integer >= 0", *it);
    return static_cast<std::size_t>(it->get<std::int64_t>());
}

}  // namespace cmfpipe::mustache
