// CMF -> harmony prompt (see prompt_renderer.hpp).
#include "prompt_renderer.hpp"

#include <optional>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/wire/json_text.hpp"
#include "cmfpipe/wire/tool_arguments.hpp"
#include "conversation_settings.hpp"
#include "special_tokens.hpp"
#include "tools_section.hpp"

namespace cmfpipe::harmony {
namespace {

using cmf::Channel;
using cmf::Role;

// One harmony message to write.
struct Turn {
    std::string author;  // role, or a tool's name for tool output
    bool from_assistant = false;
    std::optional<std::string> recipient;
    std::optional<std::string> channel;
    std::optional<std::string> content_type;
    std::string content;
};

std::string write_turn(const Turn& t) {
    std::string out(spelling(Marker::start));
    out += t.author;
    if (t.recipient && *t.recipient != "all") out += " to=" + *t.recipient;
    if (t.channel) out += std::string(spelling(Marker::channel)) + *t.channel;
    if (t.content_type) out += " " + *t.content_type;
    out += spelling(Marker::message);
    out += t.content;
    out += spelling(t.from_assistant && t.recipient ? Marker::call : Marker::end);
    return out;
}

// custom.harmony of a message (what a parsed completion kept of its headers).
struct HeaderHints {
    std::optional<std::optional<std::string>> recipient, content_type, channel;  // outer: present
};

HeaderHints hints_of(const cmf::Message& m) {
    HeaderHints h;
    const auto& custom = m.custom();
    if (!custom || !custom->is_object() || !custom->contains("harmony")) return h;
    const Json& hj = (*custom)["harmony"];
    if (!hj.is_object()) return h;
    auto read = [&](const char* key, std::optional<std::optional<std::string>>& into) {
        if (!hj.contains(key)) return;
        if (hj[key].is_string())
            into = std::optional<std::string>(hj[key].get<std::string>());
        else if (hj[key].is_null())
            into = std::optional<std::string>();
    };
    read("recipient", h.recipient);
    read("content_type", h.content_type);
    read("channel", h.channel);
    return h;
}

std::optional<std::string> channel_name(const cmf::Message& m, const HeaderHints& hints) {
    if (hints.channel) return *hints.channel;
    if (m.channel()) return std::string(cmf::to_string(*m.channel()));
    return std::nullopt;
}

std::string tool_author(const std::string& tool_name) {
    return tool_name.find('.') == std::string::npos ? "functions." + tool_name : tool_name;
}

std::string result_text(const Json& content) {
    return content.is_string() ? content.get<std::string>() : wire::dump_spaced(content);
}

[[noreturn]] void cannot_carry(std::size_t index, const cmf::Message& m,
                               const cmf::ContentPart& part) {
    throw ValueError("harmony: messages[" + std::to_string(index) + "] (" +
                     std::string(cmf::to_string(m.role())) + ") has a " +
                     std::string(cmf::to_string(part.type())) +
                     " part, which the harmony format cannot carry");
}

Turn tool_result_turn(const cmf::ToolResult& r, const cmf::Message& m, const HeaderHints& hints) {
    Turn t;
    t.author = tool_author(r.tool_name);
    t.channel = channel_name(m, hints);
    if (hints.recipient) t.recipient = *hints.recipient;
    t.content = result_text(r.content);
    return t;
}

// An assistant call to `recipient` with `arguments` (JSON text, or the raw text of a flagged call).
Turn call_turn(std::string recipient, const cmf::Message& m, const HeaderHints& hints,
               std::string arguments) {
    Turn t;
    t.author = "assistant";
    t.from_assistant = true;
    t.recipient = std::move(recipient);
    t.channel = m.channel() == Channel::analysis ? "analysis" : "commentary";
    t.content_type =
        hints.content_type ? *hints.content_type : std::optional<std::string>("<|constrain|>json");
    t.content = std::move(arguments);
    return t;
}

void assistant_turns(std::size_t index, const cmf::Message& m, std::vector<Turn>& out) {
    const HeaderHints hints = hints_of(m);
    for (const auto& part : m.content()) {
        Turn t;
        t.author = "assistant";
        t.from_assistant = true;
        if (const auto* thinking = part->get_if<cmf::Thinking>()) {
            t.channel = "analysis";
            t.content = thinking->text;
        } else if (const auto* text = part->get_if<cmf::Text>()) {
            t.channel = channel_name(m, hints);
            if (!t.channel) t.channel = "final";
            if (hints.recipient) t.recipient = *hints.recipient;
            // A message to a recipient was parsed with its content type kept unless it was the
            // usual <|constrain|>json (null when there was none).
            if (hints.content_type)
                t.content_type = *hints.content_type;
            else if (t.recipient)
                t.content_type = "<|constrain|>json";
            t.content = text->text;
        } else if (const auto* call = part->get_if<cmf::ToolCall>()) {
            t = call_turn(call->namespace_.value_or("functions") + "." + call->name, m, hints,
                          wire::dump_spaced(call->arguments));
        } else {
            cannot_carry(index, m, *part);
        }
        out.push_back(std::move(t));
    }
    // Calls whose arguments were not a JSON object: written back as they came.
    for (const Json& flagged : wire::invalid_tool_arguments(m)) {
        out.push_back(
            call_turn(flagged.value("namespace", "functions") + "." + flagged.value("name", ""), m,
                      hints, flagged.value("raw", "")));
    }
}

void plain_turn(std::size_t index, const cmf::Message& m, const std::string& author,
                std::vector<Turn>& out) {
    const HeaderHints hints = hints_of(m);
    std::optional<Turn> text_turn;
    for (const auto& part : m.content()) {
        if (const auto* text = part->text_if()) {
            if (!text_turn) {
                text_turn.emplace();
                text_turn->author = author;
                text_turn->channel = channel_name(m, hints);
                if (hints.recipient) text_turn->recipient = *hints.recipient;
            }
            text_turn->content += *text;
        } else if (const auto* result = part->get_if<cmf::ToolResult>()) {
            out.push_back(tool_result_turn(*result, m, hints));
        } else {
            cannot_carry(index, m, *part);
        }
    }
    if (text_turn) out.push_back(std::move(*text_turn));
}

std::string system_message(const ConversationSettings& s, bool has_function_tools) {
    std::vector<std::string> sections;
    std::string top;
    auto add_line = [&top](const std::string& line) { top += (top.empty() ? "" : "\n") + line; };
    if (s.identity) add_line(*s.identity);
    if (s.knowledge_cutoff) add_line("Knowledge cutoff: " + *s.knowledge_cutoff);
    if (s.current_date) add_line("Current date: " + *s.current_date);
    if (!top.empty()) sections.push_back(top);
    if (s.reasoning_effort) sections.push_back("Reasoning: " + *s.reasoning_effort);
    if (!s.system_tools.empty()) sections.push_back(tools_section(s.system_tools));
    if (!s.valid_channels.empty()) {
        std::string channels = "# Valid channels: ";
        for (std::size_t i = 0; i < s.valid_channels.size(); ++i)
            channels += (i ? ", " : "") + s.valid_channels[i];
        channels += ".";
        if (s.channel_required) channels += " Channel must be included for every message.";
        if (has_function_tools)
            channels += "\nCalls to these tools must go to the commentary channel: 'functions'.";
        sections.push_back(channels);
    }
    std::string body;
    for (std::size_t i = 0; i < sections.size(); ++i) body += (i ? "\n\n" : "") + sections[i];
    return body;
}

// Harmony's rule: when the conversation ends with a final answer, the analysis written before
// the first final answer is no longer shown to the model.
std::vector<Turn> drop_old_analysis(std::vector<Turn> turns) {
    std::optional<std::size_t> first_final;
    bool last_assistant_final = false;
    for (std::size_t i = 0; i < turns.size(); ++i) {
        const bool is_final = turns[i].channel == std::optional<std::string>("final");
        if (is_final && !first_final) first_final = i;
        if (turns[i].author == "assistant") last_assistant_final = is_final;
    }
    if (!last_assistant_final || !first_final) return turns;
    std::vector<Turn> kept;
    for (std::size_t i = 0; i < turns.size(); ++i)
        if (!(i < *first_final && turns[i].channel == std::optional<std::string>("analysis")))
            kept.push_back(std::move(turns[i]));
    return kept;
}

}  // namespace

std::string render_prompt(const std::vector<cmf::Message>& messages, const Json& agent,
                          const Json& options) {
    const ConversationSettings settings = read_settings(agent, options);
    std::vector<wire::FunctionTool> functions = wire::function_tools(agent, "harmony");

    // Leading system/developer messages are the developer instructions.
    std::size_t first = 0;
    std::string instructions;
    for (; first < messages.size(); ++first) {
        const auto& m = messages[first];
        if (m.role() != Role::system && m.role() != Role::developer) break;
        for (const auto& part : m.content()) {
            const auto* text = part->text_if();
            if (!text) cannot_carry(first, m, *part);
            instructions += (instructions.empty() ? "" : "\n\n") + *text;
        }
    }

    std::vector<Turn> turns;
    for (std::size_t i = first; i < messages.size(); ++i) {
        const auto& m = messages[i];
        switch (m.role()) {
            case Role::assistant:
                assistant_turns(i, m, turns);
                break;
            case Role::user:
                plain_turn(i, m, "user", turns);
                break;
            case Role::system:
            case Role::developer:
                plain_turn(i, m, "developer", turns);
                break;
            case Role::tool:
                plain_turn(i, m, "tool", turns);
                break;
        }
    }
    if (settings.auto_drop_analysis) turns = drop_old_analysis(std::move(turns));

    std::string out;
    if (settings.system_message) {
        Turn system;
        system.author = "system";
        system.content = system_message(settings, !functions.empty());
        out += write_turn(system);
    }
    if (!instructions.empty() || !functions.empty()) {
        std::vector<std::string> sections;
        if (!instructions.empty()) {
            sections.push_back("# Instructions");
            sections.push_back(instructions);
        }
        if (!functions.empty())
            sections.push_back(tools_section({ToolNamespace{"functions", "", functions}}));
        Turn developer;
        developer.author = "developer";
        for (std::size_t i = 0; i < sections.size(); ++i)
            developer.content += (i ? "\n\n" : "") + sections[i];
        out += write_turn(developer);
    }
    for (const auto& t : turns) out += write_turn(t);
    if (settings.add_generation_prompt) out += std::string(spelling(Marker::start)) + "assistant";
    return out;
}

}  // namespace cmfpipe::harmony
