#include "thread_value.hpp"

#include <string>

#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/request.hpp"
#include "media_value.hpp"
#include "metadata.hpp"

namespace cmfpipe::prompty_parser {
namespace {

bool is_cmf_json(const Json& message) {
    if (message.contains("schema_version")) return true;
    auto content = message.find("content");
    if (content == message.end() || !content->is_array()) return false;
    for (const auto& part : *content) {
        if (part.is_object() && part.contains("content_type")) return true;
    }
    return false;
}

cmf::PartPtr prompty_part(const Json& part, const std::string& path, std::string_view input_name) {
    if (part.is_string()) return cmf::ContentPart::text(part.get<std::string>());
    if (!part.is_object())
        throw ValueError(path + ": a content part must be an object or a string");
    auto kind = part.find("kind");
    if (kind == part.end() || !kind->is_string())
        throw ValueError(path + ": a content part needs a string \"kind\"");
    const std::string& k = kind->get_ref<const std::string&>();
    if (k == "text") {
        auto value = part.find("value");
        if (value == part.end() || !value->is_string())
            throw ValueError(path + ": a text part needs a string \"value\"");
        return cmf::ContentPart::text(value->get<std::string>());
    }
    if (k == "image" || k == "file" || k == "audio") return media_part(k, part, input_name);
    throw ValueError(path + ": unknown content part kind '" + k + "' (text, image, file, audio)");
}

cmf::Message prompty_message(const Json& message, const std::string& path,
                             std::string_view input_name) {
    const Json& role_json = message.at("role");
    if (!role_json.is_string()) throw ValueError(path + ".role: must be a string");
    auto role = cmf::enum_from_string<cmf::Role>(role_json.get_ref<const std::string&>());
    if (!role) {
        throw ValueError(path + ".role: unknown role '" + role_json.get<std::string>() + "' (" +
                         std::string(cmf::enum_spellings<cmf::Role>()) + ")");
    }
    // normalize_thread made content a list of parts.
    const Json& content = message.at("content");
    cmf::Content parts;
    for (std::size_t i = 0; i < content.size(); ++i) {
        parts.push_back(
            prompty_part(content[i], path + ".content[" + std::to_string(i) + "]", input_name));
    }
    cmf::Message out(*role, std::move(parts));
    if (auto metadata = message.find("metadata"); metadata != message.end())
        out = with_metadata(out, *metadata);
    return out;
}

}  // namespace

std::optional<std::vector<cmf::Message>> thread_messages(const Json& value,
                                                         std::string_view input_name) {
    // §6.7: a value that is not a list of messages leaves the token as literal text; whether it
    // is one is normalize_thread's call (the host has normally called it already).
    Json messages;
    try {
        messages = normalize_thread(value, input_name);
    } catch (const ValueError&) {
        return std::nullopt;
    }
    std::vector<cmf::Message> out;
    out.reserve(messages.size());
    const std::string root = "inputs." + std::string(input_name);
    for (std::size_t i = 0; i < messages.size(); ++i) {
        const std::string path = root + "[" + std::to_string(i) + "]";
        out.push_back(is_cmf_json(messages[i]) ? cmf::message_from_json(messages[i], path)
                                               : prompty_message(messages[i], path, input_name));
    }
    return out;
}

}  // namespace cmfpipe::prompty_parser
