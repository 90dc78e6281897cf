// Harmony conversation settings from options and agent (see conversation_settings.hpp).
#include "conversation_settings.hpp"

#include "cmfpipe/errors.hpp"

namespace cmfpipe::harmony {
namespace {

// The first place that has `key`, in the documented order; nullptr when none has it.
class Lookup {
  public:
    Lookup(const Json& agent, const Json& options) {
        add(options, "harmony");
        add_object(options);
        if (agent.is_object() && agent.contains("model") && agent["model"].is_object())
            add(agent["model"], "options");
        if (agent.is_object()) add(agent, "metadata");
    }
    const Json* find(const char* key) const {
        for (const Json* scope : scopes_)
            if (scope->contains(key)) return &(*scope)[key];
        return nullptr;
    }

  private:
    void add_object(const Json& j) {
        if (j.is_object()) scopes_.push_back(&j);
    }
    void add(const Json& parent, const char* key) {
        if (parent.is_object() && parent.contains(key)) add_object(parent[key]);
    }
    std::vector<const Json*> scopes_;
};

[[noreturn]] void wrong_type(const char* key, const char* wanted, const Json& got) {
    throw ValueError(std::string("harmony option '") + key + "' must be " + wanted + ", got " +
                     got.dump());
}

void read_text(const Lookup& lookup, const char* key, std::optional<std::string>& into) {
    const Json* v = lookup.find(key);
    if (!v) return;
    if (v->is_null())
        into.reset();
    else if (v->is_string())
        into = v->get<std::string>();
    else
        wrong_type(key, "a string or null", *v);
}

void read_flag(const Lookup& lookup, const char* key, bool& into) {
    const Json* v = lookup.find(key);
    if (!v) return;
    if (!v->is_boolean()) wrong_type(key, "true or false", *v);
    into = v->get<bool>();
}

std::vector<ToolNamespace> read_namespaces(const Json& list) {
    if (!list.is_array()) wrong_type("system_tools", "a list of tool namespaces", list);
    std::vector<ToolNamespace> out;
    for (const auto& entry : list) {
        if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string())
            throw ValueError(
                "harmony option 'system_tools': every namespace needs a string 'name'");
        ToolNamespace ns;
        ns.name = entry["name"].get<std::string>();
        ns.description = entry.value("description", "");
        Json holder = {{"tools", entry.value("tools", Json::array())}};
        ns.tools = wire::function_tools(holder, "harmony option 'system_tools' (" + ns.name + ")");
        out.push_back(std::move(ns));
    }
    return out;
}

}  // namespace

ConversationSettings read_settings(const Json& agent, const Json& options) {
    Lookup lookup(agent, options);
    ConversationSettings s;
    read_text(lookup, "identity", s.identity);
    read_text(lookup, "knowledge_cutoff", s.knowledge_cutoff);
    read_text(lookup, "current_date", s.current_date);
    read_text(lookup, "reasoning_effort", s.reasoning_effort);
    if (s.reasoning_effort && *s.reasoning_effort != "low" && *s.reasoning_effort != "medium" &&
        *s.reasoning_effort != "high")
        throw ValueError("harmony option 'reasoning_effort' must be low, medium or high, got '" +
                         *s.reasoning_effort + "'");
    if (const Json* v = lookup.find("valid_channels")) {
        if (!v->is_array()) wrong_type("valid_channels", "a list of channel names", *v);
        s.valid_channels.clear();
        for (const auto& c : *v) {
            if (!c.is_string()) wrong_type("valid_channels", "a list of channel names", *v);
            s.valid_channels.push_back(c.get<std::string>());
        }
    }
    read_flag(lookup, "channel_required", s.channel_required);
    read_flag(lookup, "system_message", s.system_message);
    read_flag(lookup, "auto_drop_analysis", s.auto_drop_analysis);
    read_flag(lookup, "add_generation_prompt", s.add_generation_prompt);
    if (const Json* v = lookup.find("system_tools")) s.system_tools = read_namespaces(*v);
    return s;
}

}  // namespace cmfpipe::harmony
