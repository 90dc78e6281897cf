#include "document_writer.hpp"

#include "cmfpipe/errors.hpp"
#include "cmfpipe/utf8.hpp"
#include "cmfpipe/wire/tool_arguments.hpp"
#include "document_scanner.hpp"
#include "text_escape.hpp"

namespace cmfpipe::prapti {
namespace {

struct Planned {
    std::string role;
    std::string name;
    std::string text;  // as it reads back
};

std::string valid_utf8(std::string_view text) {
    std::string out;
    for (std::size_t bad = find_invalid_utf8(text); bad != std::string_view::npos;
         bad = find_invalid_utf8(text)) {
        out.append(text.substr(0, bad));
        out += "\xEF\xBF\xBD";
        text.remove_prefix(bad + 1);
    }
    out.append(text);
    return out;
}

std::string heading_name(std::string name) {
    for (char& c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '_' || c == '-';
        if (!ok) c = '_';
    }
    return name;
}

std::string speaker_name(const cmf::Message& message) {
    if (!message.custom()) return "";
    auto metadata = message.custom()->find("metadata");
    if (metadata == message.custom()->end() || !metadata->is_object()) return "";
    auto name = metadata->find("name");
    if (name == metadata->end() || !name->is_string()) return "";
    return heading_name(name->get<std::string>());
}

std::string json_block(const Json& value) {
    return "```json\n" + value.dump(2, ' ', false, Json::error_handler_t::replace) + "\n```";
}

std::string joined(const std::vector<std::string>& pieces) {
    std::string out;
    for (const std::string& piece : pieces) out += (out.empty() ? "" : "\n") + piece;
    return std::string(readable_text(valid_utf8(out)));
}

std::vector<Planned> plan(const std::vector<cmf::Message>& messages) {
    std::vector<Planned> out;
    for (std::size_t m = 0; m < messages.size(); ++m) {
        const cmf::Message& message = messages[m];
        std::vector<std::string> thinking, text;
        std::vector<Planned> after;
        for (std::size_t p = 0; p < message.size(); ++p) {
            const cmf::ContentPart& part = *message.part(p);
            if (const auto* t = part.get_if<cmf::Text>()) {
                text.push_back(t->text);
            } else if (const auto* t = part.get_if<cmf::Thinking>()) {
                thinking.push_back(t->text);
            } else if (const auto* call = part.get_if<cmf::ToolCall>()) {
                after.push_back(
                    {"_tool_call", heading_name(call->name),
                     json_block({{"id", call->tool_call_id}, {"arguments", call->arguments}})});
            } else if (const auto* result = part.get_if<cmf::ToolResult>()) {
                after.push_back(
                    {"_tool_result", heading_name(result->tool_name),
                     json_block({{"id", result->tool_call_id}, {"content", result->content}})});
            } else {
                throw ValueError("prapti: messages[" + std::to_string(m) + "].content[" +
                                 std::to_string(p) + "]: a Prapti document holds text; a " +
                                 std::string(cmf::to_string(part.type())) +
                                 " part has no form in it");
            }
        }
        for (const Json& flagged : wire::invalid_tool_arguments(message)) {
            after.push_back({"_tool_call", heading_name(flagged.value("name", "")),
                             json_block({{"id", flagged.value("tool_call_id", "")},
                                         {"arguments_text", flagged.value("raw", "")}})});
        }
        if (!thinking.empty()) out.push_back({"_reasoning", "", joined(thinking)});
        if (message.role() != cmf::Role::tool || !text.empty()) {
            out.push_back(
                {std::string(cmf::to_string(message.role())), speaker_name(message), joined(text)});
        }
        for (Planned& planned : after) out.push_back(std::move(planned));
    }
    return out;
}

std::vector<Section> structure_of(std::string_view text, DocumentEnd* end = nullptr) {
    Includes none({}, "<document>", {});
    return scan_document(text, none, ScanMode::structure, end);
}

bool same(const Section& a, const Section& b) {
    return a.role == b.role && a.name == b.name && a.text == b.text;
}

// The appended text reads back as planned, and the document's own messages as before.
void verify(std::string_view after, const std::string& appended,
            const std::vector<Planned>& planned, bool closed_fence) {
    const std::vector<Section> before = structure_of(after);
    std::string whole(after);
    whole += appended;
    const std::vector<Section> now = structure_of(whole);
    bool ok = now.size() == before.size() + planned.size();
    for (std::size_t i = 0; ok && i < before.size(); ++i) {
        // A fence the document left open is closed in its last message.
        const bool last = i + 1 == before.size();
        ok = last && closed_fence ? now[i].role == before[i].role && now[i].name == before[i].name
                                  : same(now[i], before[i]);
    }
    for (std::size_t i = 0; ok && i < planned.size(); ++i) {
        const Section& read = now[before.size() + i];
        ok = read.role == planned[i].role && read.name == planned[i].name &&
             read.text == planned[i].text;
    }
    if (!ok) {
        throw ValueError(
            "prapti: these messages cannot be appended without changing how the document reads "
            "(is there a `<!--` without its `-->`?); nothing was written");
    }
}

}  // namespace

std::string write_messages(const std::vector<cmf::Message>& messages, const WriteOptions& options) {
    std::vector<Planned> planned = plan(messages);
    if (options.next_user) planned.push_back({"user", "", ""});
    std::string out;
    bool closed_fence = false;
    if (!options.after.empty()) {
        DocumentEnd end;
        (void)structure_of(options.after, &end);
        if (options.after.back() != '\n') out += '\n';
        if (end.open_fence && end.open_fence->quote_depth == 0) {
            out += std::string(end.open_fence->length, end.open_fence->marker) + "\n";
            closed_fence = true;
        }
        const bool blank_before = out.empty() && options.after.size() >= 2 &&
                                  options.after.substr(options.after.size() - 2) == "\n\n";
        if (!blank_before) out += '\n';
    }
    for (const Planned& section : planned) {
        out += "### @" + section.role + (section.name.empty() ? "" : "/" + section.name) + ":\n\n";
        if (!section.text.empty()) out += escape_text(section.text) + "\n\n";
    }
    verify(options.after, out, planned, closed_fence);
    return out;
}

}  // namespace cmfpipe::prapti
