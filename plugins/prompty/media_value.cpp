#include "media_value.hpp"

#include <optional>
#include <string>

#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/errors.hpp"

namespace cmfpipe::prompty_parser {
namespace {

struct Source {
    cmf::MediaSourceType type = cmf::MediaSourceType::url;
    std::string data;
    std::optional<std::string> media_type;
};

bool has_scheme(std::string_view text) {
    const auto sep = text.find("://");
    if (sep == std::string_view::npos || sep == 0) return false;
    for (char c : text.substr(0, sep)) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
        if (!ok) return false;
    }
    return true;
}

Source classify(std::string_view text) {
    if (text.substr(0, 5) == "data:") {
        const auto comma = text.find(',');
        const std::string_view header =
            text.substr(5, comma == std::string_view::npos ? 0 : comma - 5);
        constexpr std::string_view base64_flag = ";base64";
        if (comma != std::string_view::npos && header.size() >= base64_flag.size() &&
            header.substr(header.size() - base64_flag.size()) == base64_flag) {
            const std::string_view media = header.substr(0, header.size() - base64_flag.size());
            Source s{cmf::MediaSourceType::base64, std::string(text.substr(comma + 1)),
                     std::nullopt};
            if (!media.empty()) s.media_type = std::string(media);
            return s;
        }
        return {cmf::MediaSourceType::url, std::string(text), std::nullopt};  // a plain data URL
    }
    if (has_scheme(text)) return {cmf::MediaSourceType::url, std::string(text), std::nullopt};
    return {cmf::MediaSourceType::base64, std::string(text), std::nullopt};
}

[[noreturn]] void bad_value(std::string_view kind, std::string_view name, const std::string& why) {
    throw ValueError("input '" + std::string(name) + "' (kind " + std::string(kind) + "): " + why);
}

const Json* first_of(const Json& object, std::initializer_list<const char*> keys) {
    for (const char* key : keys) {
        if (auto it = object.find(key); it != object.end()) return &*it;
    }
    return nullptr;
}

}  // namespace

cmf::PartPtr media_part(std::string_view kind, const Json& value, std::string_view input_name) {
    if (value.is_object() && value.contains("content_type")) {
        cmf::PartPtr part = cmf::part_from_json(value, "inputs." + std::string(input_name));
        const auto t = part->type();
        const bool fits = (kind == "image" && t == cmf::ContentType::image) ||
                          (kind == "file" && t == cmf::ContentType::document) ||
                          (kind == "audio" && t == cmf::ContentType::audio);
        if (!fits)
            bad_value(
                kind, input_name,
                "a CMF part of content_type '" + std::string(cmf::to_string(t)) + "' does not fit");
        return part;
    }
    Source source;
    std::optional<std::string> title;
    if (value.is_string()) {
        source = classify(value.get_ref<const std::string&>());
    } else if (value.is_object()) {
        const Json* data = first_of(value, {"value", "source", "url", "data"});
        if (data == nullptr || !data->is_string()) {
            bad_value(
                kind, input_name,
                "an object value needs a string \"value\" (or \"source\", \"url\", \"data\")");
        }
        source = classify(data->get_ref<const std::string&>());
        if (const Json* media = first_of(value, {"mediaType", "media_type"});
            media && !media->is_null()) {
            if (!media->is_string()) bad_value(kind, input_name, "\"mediaType\" must be a string");
            source.media_type = media->get<std::string>();
        }
        if (const Json* t = first_of(value, {"title"}); t && t->is_string())
            title = t->get<std::string>();
    } else {
        bad_value(kind, input_name,
                  "the value must be a string (URL, data URL or base64) or an object, not " +
                      std::string(value.type_name()));
    }
    if (source.data.empty()) bad_value(kind, input_name, "the value is empty");
    if (kind == "image")
        return cmf::ContentPart::make(
            cmf::ImageSource{source.type, source.data, source.media_type});
    if (kind == "audio") {
        return cmf::ContentPart::make(
            cmf::AudioSource{source.type, source.data, source.media_type, std::nullopt});
    }
    return cmf::ContentPart::make(
        cmf::DocumentSource{source.type, source.data, source.media_type, title});
}

}  // namespace cmfpipe::prompty_parser
