// chatml adapter options (see chatml_settings.hpp).
#include "chatml_settings.hpp"

#include "cmfpipe/errors.hpp"

namespace cmfpipe::chatml {
namespace {

const Json* find(const Json& options, const char* key) {
    if (!options.is_object()) return nullptr;
    if (auto scoped = options.find("chatml");
        scoped != options.end() && scoped->is_object() && scoped->contains(key))
        return &(*scoped)[key];
    if (options.contains(key)) return &options[key];
    return nullptr;
}

[[noreturn]] void wrong(const char* key, const char* wanted, const Json& got) {
    throw ValueError(std::string("chatml option '") + key + "' must be " + wanted + ", got " +
                     got.dump());
}

void read_flag(const Json& options, const char* key, bool& into) {
    if (const Json* v = find(options, key)) {
        if (!v->is_boolean()) wrong(key, "true or false", *v);
        into = v->get<bool>();
    }
}

}  // namespace

Settings read_settings(const Json& options) {
    Settings s;
    if (const Json* v = find(options, "convention")) {
        if (*v == "hermes")
            s.hermes = true;
        else if (*v != "qwen")
            wrong("convention", "\"qwen\" or \"hermes\"", *v);
    }
    if (const Json* v = find(options, "default_system")) {
        if (v->is_string())
            s.default_system = v->get<std::string>();
        else if (!v->is_null())
            wrong("default_system", "a string or null", *v);
    }
    read_flag(options, "add_generation_prompt", s.add_generation_prompt);
    if (const Json* v = find(options, "enable_thinking")) {
        if (v->is_boolean())
            s.enable_thinking = v->get<bool>();
        else if (!v->is_null())
            wrong("enable_thinking", "true, false or null", *v);
    }
    if (const Json* v = find(options, "role")) {
        if (!v->is_string()) wrong("role", "a role name", *v);
        s.role = v->get<std::string>();
        if (s.role != "assistant" && s.role != "user" && s.role != "system" && s.role != "tool" &&
            s.role != "developer")
            wrong("role", "system, developer, user, assistant or tool", *v);
    }
    read_flag(options, "complete", s.complete);
    if (const Json* v = find(options, "source"); v && v->is_string())
        s.source = v->get<std::string>();
    return s;
}

}  // namespace cmfpipe::chatml
