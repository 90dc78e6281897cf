#include "prompty_messages.hpp"

#include <stdexcept>

namespace cmfpipe::testing {
namespace {

bool is_url(const std::string& value) {
    return value.rfind("http://", 0) == 0 || value.rfind("https://", 0) == 0 ||
           value.rfind("data:", 0) == 0;
}

template <class Source>
Source media(const Json& part) {
    Source s;
    s.data = part.at("value").get<std::string>();
    s.type = is_url(s.data) ? cmf::MediaSourceType::url : cmf::MediaSourceType::base64;
    if (part.contains("mediaType")) s.media_type = part["mediaType"].get<std::string>();
    return s;
}

}  // namespace

std::vector<cmf::Message> prompty_to_cmf(const Json& messages) {
    std::vector<cmf::Message> out;
    for (const Json& m : messages) {
        auto role = cmf::enum_from_string<cmf::Role>(m.at("role").get<std::string>());
        if (!role) throw std::runtime_error("unknown role in vector: " + m.dump());
        cmf::Content parts;
        for (const Json& part : m.at("content")) {
            const std::string kind = part.at("kind").get<std::string>();
            if (kind == "text") {
                parts.push_back(cmf::ContentPart::text(part.at("value").get<std::string>()));
            } else if (kind == "image") {
                parts.push_back(cmf::ContentPart::make(media<cmf::ImageSource>(part)));
            } else if (kind == "audio") {
                parts.push_back(cmf::ContentPart::make(media<cmf::AudioSource>(part)));
            } else if (kind == "file") {
                parts.push_back(cmf::ContentPart::make(media<cmf::DocumentSource>(part)));
            } else {
                throw std::runtime_error("unknown part kind in vector: " + part.dump());
            }
        }
        out.emplace_back(*role, std::move(parts));
    }
    return out;
}

}  // namespace cmfpipe::testing
