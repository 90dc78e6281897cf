// Anthropic content blocks <-> CMF parts. Text, thinking, tool_use, tool_result, image and
// document have a block each; CMF parts with no block (video, resources, prompts) are errors.
// Given MessageSlots, the readers also note where each part was (for the body calls, body.cpp).
#include <map>

#include "anthropic_wire.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/wire/request_fields.hpp"
#include "cmfpipe/wire/tool_arguments.hpp"

namespace cmfpipe::anthropic {
namespace {

using cmf::ContentPart;
using wire::WireNode;

constexpr std::string_view data_scheme = "data:";
constexpr std::string_view base64_marker = ";base64,";

// {type: base64, media_type, data} | {type: url, url}; a data: URL is sent as base64.
template <class Source>
Json source_json(const Source& source, const std::string& place) {
    if (source.type == cmf::MediaSourceType::base64) {
        if (!source.media_type)
            throw ValueError("anthropic: " + place + ": base64 data needs a media_type");
        return Json{{"type", "base64"}, {"media_type", *source.media_type}, {"data", source.data}};
    }
    std::string_view url = source.data;
    if (url.substr(0, data_scheme.size()) == data_scheme) {
        auto at = url.find(base64_marker);
        if (at != std::string_view::npos) {
            return Json{{"type", "base64"},
                        {"media_type",
                         std::string(url.substr(data_scheme.size(), at - data_scheme.size()))},
                        {"data", std::string(url.substr(at + base64_marker.size()))}};
        }
    }
    return Json{{"type", "url"}, {"url", source.data}};
}

template <class Source>
void read_source(const WireNode& node, Source& out) {
    const std::string& type = node.at("type").string();
    if (type == "base64") {
        out.type = cmf::MediaSourceType::base64;
        out.media_type = node.at("media_type").string();
        out.data = node.at("data").string();
    } else if (type == "url") {
        out.type = cmf::MediaSourceType::url;
        out.data = node.at("url").string();
    } else if (type == "text") {
        out.type = cmf::MediaSourceType::base64;  // plain-text document source: kept as its text
        out.media_type = node.string_or("media_type", "text/plain");
        out.data = node.at("data").string();
    } else {
        node.at("type").fail("unknown source type '" + type + "'");
    }
}

// In a request, the members of a block beyond those read are refused when they hold text:
// cache_control is a setting, a thinking signature and redacted thinking's data are the
// provider's own (sealed, immutable in the pipeline). A document's `context` and a plain-text
// source have no place in CMF; text blocks' citations quote documents: all refused.
void check_block_members(const WireNode& block, const std::string& type) {
    if (type == "text") {
        wire::refuse_unshown_members(block, {"type", "text", "cache_control"});
    } else if (type == "thinking") {
        wire::refuse_unshown_members(block, {"type", "thinking", "signature"});
    } else if (type == "redacted_thinking") {
        wire::refuse_unshown_members(block, {"type", "data"});
    } else if (type == "tool_use") {
        wire::refuse_unshown_members(block, {"type", "id", "name", "input", "cache_control"});
    } else if (type == "tool_result") {
        wire::refuse_unshown_members(
            block, {"type", "tool_use_id", "content", "is_error", "cache_control"});
    } else if (type == "image" || type == "document") {
        if (type == "image") {
            wire::refuse_unshown_members(block, {"type", "source", "cache_control"});
        } else {
            wire::refuse_unshown_members(block,
                                         {"type", "source", "title", "citations", "cache_control"});
        }
        const WireNode source = block.at("source").object();
        const std::string& source_type = source.at("type").string();
        if (source_type == "text") {
            source.at("type").fail(
                "a plain-text document cannot be shown to the processors as text (refused, never "
                "forwarded unseen): send its text as a text block");
        }
        if (source_type == "base64" || source_type == "url")  // others: read_source says why not
            wire::refuse_unshown_members(source, {"type", "media_type", "data", "url"});
    }
}

// A tool_use whose input is not a JSON object, in a request or an answer read for a proxy: a text
// part the processors see (and may rewrite: body.cpp writes it back as the input), standing for
// the block.
void add_shown_input(const WireNode& block, const wire::ToolArguments& arguments,
                     cmf::Content& parts) {
    parts.push_back(ContentPart::text(
        wire::arguments_shown_text(arguments.raw, block.what() + ": " + block.path_of("input"))));
}

}  // namespace

std::shared_ptr<const Json> finish_custom(Json custom) {
    if (custom.empty()) return nullptr;
    return std::make_shared<const Json>(std::move(custom));
}

Json part_to_block(const ContentPart& part, const std::string& place) {
    if (const auto* text = part.get_if<cmf::Text>())
        return Json{{"type", "text"}, {"text", text->text}};
    if (const auto* thinking = part.get_if<cmf::Thinking>()) {
        if (thinking->redacted)
            return Json{{"type", "redacted_thinking"}, {"data", thinking->signature}};
        Json block = {{"type", "thinking"}, {"thinking", thinking->text}};
        if (thinking->sealed()) block["signature"] = thinking->signature;
        return block;
    }
    if (const auto* call = part.get_if<cmf::ToolCall>()) {
        return Json{{"type", "tool_use"},
                    {"id", call->tool_call_id},
                    {"name", call->name},
                    {"input", call->arguments}};
    }
    if (const auto* result = part.get_if<cmf::ToolResult>()) {
        Json block = {{"type", "tool_result"}, {"tool_use_id", result->tool_call_id}};
        if (!result->content.is_null()) {
            const Json& content = result->content;
            block["content"] = content.is_string() || wire::is_block_array(content)
                                   ? content
                                   : Json(content.dump());
        }
        if (result->is_error) block["is_error"] = true;
        return block;
    }
    if (const auto* image = part.get_if<cmf::ImageSource>()) {
        return Json{{"type", "image"}, {"source", source_json(*image, place)}};
    }
    if (const auto* doc = part.get_if<cmf::DocumentSource>()) {
        Json block = {{"type", "document"}, {"source", source_json(*doc, place)}};
        if (doc->title) block["title"] = *doc->title;
        return block;
    }
    throw ValueError("anthropic: " + place + ": the Messages API has no block for this part");
}

BlockRead block_to_parts(const WireNode& block, cmf::Content& parts, Json& custom,
                         TextPolicy policy) {
    block.object();
    const std::string& type = block.at("type").string();
    if (policy == TextPolicy::show_or_refuse) check_block_members(block, type);
    if (type == "text") {
        parts.push_back(ContentPart::text(block.at("text").string()));
    } else if (type == "thinking") {
        // The signature seals the text: the part is immutable in the pipeline (cmf::Thinking).
        parts.push_back(
            ContentPart::thinking(block.at("thinking").string(), block.string_or("signature", "")));
    } else if (type == "redacted_thinking") {
        const std::string& data = block.at("data").string();
        if (data.empty()) block.at("data").fail("redacted thinking without its data");
        parts.push_back(ContentPart::make(cmf::Thinking{"", data, true}));
    } else if (type == "tool_use") {
        cmf::ToolCall call{block.at("id").string(), block.at("name").string(), Json::object(),
                           std::nullopt};
        if (!block.json().contains("input")) block.at("input");  // the usual "missing" error
        wire::ToolArguments arguments = wire::tool_arguments_from_value(block.json()["input"]);
        if (arguments.error && policy != TextPolicy::keep) {
            add_shown_input(block, arguments, parts);
        } else if (arguments.error) {
            wire::flag_invalid_tool_arguments(custom, call, arguments);
            return BlockRead::flagged;
        } else {
            call.arguments = std::move(arguments.object);
            parts.push_back(ContentPart::make(std::move(call)));
        }
    } else if (type == "tool_result") {
        cmf::ToolResult result;
        result.tool_call_id = block.at("tool_use_id").string();
        if (auto content = block.find("content")) result.content = content->json();
        if (auto is_error = block.find("is_error")) result.is_error = is_error->boolean();
        parts.push_back(ContentPart::make(std::move(result)));
    } else if (type == "image") {
        cmf::ImageSource image;
        read_source(block.at("source").object(), image);
        parts.push_back(ContentPart::make(std::move(image)));
    } else if (type == "document") {
        cmf::DocumentSource doc;
        read_source(block.at("source").object(), doc);
        doc.title = block.optional_string("title");
        parts.push_back(ContentPart::make(std::move(doc)));
    } else if (policy == TextPolicy::show_or_refuse) {
        block.at("type").fail("unsupported content block type '" + type +
                              "' (CMF has no part for it)");
    } else {
        custom["provider_blocks"].push_back(
            block.json());  // server tools, citations...: kept verbatim
        return BlockRead::opaque;
    }
    return BlockRead::part;
}

void read_blocks(const WireNode& content, cmf::Content& parts, Json& custom,
                 wire::MessageSlots* slots, TextPolicy policy) {
    std::vector<WireNode> blocks = content.elements();
    for (std::size_t k = 0; k < blocks.size(); ++k) {
        BlockRead read = block_to_parts(blocks[k], parts, custom, policy);
        if (!slots) continue;
        auto& list = read == BlockRead::part      ? slots->parts
                     : read == BlockRead::flagged ? slots->flagged
                                                  : slots->opaque;
        list.push_back(wire::PartSlot{"content", k});
    }
}

std::vector<cmf::Message> read_conversation(const WireNode& body, TextPolicy policy,
                                            ConversationSlots* where) {
    std::vector<cmf::Message> out;
    auto origin = [&](std::string path) -> wire::MessageSlots* {
        if (!where) return nullptr;
        where->origins.push_back(std::move(path));
        return &where->slots.emplace_back();
    };
    if (auto system = body.find("system")) {
        wire::MessageSlots* slots = origin("system");
        cmf::Content parts;
        Json custom = Json::object();
        if (system->is_string()) {
            parts.push_back(ContentPart::text(system->string()));
            if (slots) slots->parts.push_back(wire::PartSlot{"content", std::nullopt});
        } else {
            if (policy == TextPolicy::show_or_refuse) {
                for (const WireNode& block : system->elements()) {
                    if (block.object().at("type").string() != "text")
                        block.at("type").fail("the system takes text blocks only");
                }
            }
            read_blocks(*system, parts, custom, slots, policy);
        }
        out.emplace_back(cmf::Role::system, std::move(parts));
        if (auto slot = finish_custom(std::move(custom)))
            out.back() = out.back().with_custom(std::move(slot));
    }
    std::map<std::string, std::string, std::less<>> tool_names;
    std::vector<WireNode> messages = body.at("messages").elements();
    for (std::size_t k = 0; k < messages.size(); ++k) {
        const WireNode& message = messages[k];
        message.object();
        if (policy == TextPolicy::show_or_refuse)
            wire::refuse_unshown_members(message, {"role", "content"});
        WireNode role_node = message.at("role");
        const std::string& role_name = role_node.string();
        if (role_name != "user" && role_name != "assistant")
            role_node.fail("unknown role '" + role_name + "'");
        cmf::Role role = role_name == "user" ? cmf::Role::user : cmf::Role::assistant;
        cmf::Content parts;
        Json message_custom = Json::object();
        wire::MessageSlots read;
        WireNode content = message.at("content");
        if (content.is_string()) {
            parts.push_back(ContentPart::text(content.string()));
            read.parts.push_back(wire::PartSlot{"content", std::nullopt});
        } else {
            read_blocks(content, parts, message_custom, &read, policy);
        }
        // Tool results ride in user messages on this wire; in CMF they are a tool message (first).
        cmf::Content results, rest;
        wire::MessageSlots result_slots,
            rest_slots{{}, std::move(read.flagged), std::move(read.opaque)};
        for (std::size_t i = 0; i < parts.size(); ++i) {
            cmf::PartPtr& p = parts[i];
            if (const auto* call = p->get_if<cmf::ToolCall>())
                tool_names[call->tool_call_id] = call->name;
            if (const auto* result = p->get_if<cmf::ToolResult>()) {
                cmf::ToolResult named = *result;
                if (auto it = tool_names.find(named.tool_call_id); it != tool_names.end())
                    named.tool_name = it->second;
                results.push_back(ContentPart::make(std::move(named)));
                result_slots.parts.push_back(read.parts[i]);
            } else {
                rest.push_back(std::move(p));
                rest_slots.parts.push_back(read.parts[i]);
            }
        }
        const std::string path = "messages[" + std::to_string(k) + "]";
        const bool had_results = !results.empty();
        if (had_results) {
            out.emplace_back(cmf::Role::tool, std::move(results));
            if (wire::MessageSlots* slots = origin(path)) *slots = std::move(result_slots);
        }
        std::shared_ptr<const Json> custom = finish_custom(std::move(message_custom));
        if (!rest.empty() || !had_results || custom) {
            cmf::Message m(role, std::move(rest));
            if (custom) m = m.with_custom(std::move(custom));
            out.push_back(std::move(m));
            if (wire::MessageSlots* slots = origin(path)) *slots = std::move(rest_slots);
        }
    }
    return out;
}

}  // namespace cmfpipe::anthropic
