#pragma once
// Shared by the jinja2 tests: the real plugin, loaded the way the CLI loads it (default
// discovery finds build/lib/cmfpipe/plugins/jinja2.so), and small file helpers.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/json.hpp"
#include "support/registry.hpp"

namespace cmfpipe::testing {

inline std::shared_ptr<Renderer> jinja2_renderer(const Json& config = Json::object()) {
    return bundled_plugins().make_renderer("jinja2", config);
}

inline std::string read_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

inline Json chat_options(const std::string& name = "<test>") {
    return Json{
        {"profile", "chat-template"}, {"now", "2024-07-26T00:00:00"}, {"template_name", name}};
}

// What a render produced: the text, or the error's kind and message.
struct Outcome {
    bool ok = false;
    std::string text;
    std::string error_kind;
    std::string error_message;
};

inline Outcome render_outcome(const Renderer& r, const std::string& tpl, const Json& vars,
                              const Json& options) {
    Outcome o;
    try {
        o.text = r.render(tpl, vars, options);
        o.ok = true;
    } catch (const Error& e) {
        o.error_kind = e.kind();
        o.error_message = e.message();
    }
    return o;
}

}  // namespace cmfpipe::testing
