// Media in OpenAI form: data URLs ("data:image/png;base64,...") and input_audio formats, images
// and files both ways.
#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/errors.hpp"
#include "openai_wire.hpp"

namespace cmfpipe::openai {

std::optional<DataUrl> parse_data_url(std::string_view url) {
    constexpr std::string_view scheme = "data:";
    constexpr std::string_view marker = ";base64,";
    if (url.substr(0, scheme.size()) != scheme) return std::nullopt;
    auto at = url.find(marker);
    if (at == std::string_view::npos) return std::nullopt;
    return DataUrl{std::string(url.substr(scheme.size(), at - scheme.size())),
                   std::string(url.substr(at + marker.size()))};
}

std::string make_data_url(std::string_view media_type, std::string_view base64) {
    std::string out;
    out.reserve(media_type.size() + base64.size() + 13);
    out.append("data:").append(media_type).append(";base64,").append(base64);
    return out;
}

// spec §7.1.2 audio format table.
std::string audio_format(std::string_view media_type) {
    if (media_type == "audio/wav" || media_type == "audio/x-wav") return "wav";
    if (media_type == "audio/mp3" || media_type == "audio/mpeg") return "mp3";
    constexpr std::string_view prefix = "audio/";
    if (media_type.substr(0, prefix.size()) == prefix)
        return std::string(media_type.substr(prefix.size()));
    return std::string(media_type);
}

std::string audio_media_type(std::string_view format) {
    if (format == "mp3") return "audio/mpeg";
    return "audio/" + std::string(format);
}

std::string image_url(const cmf::ImageSource& image, const std::string& place) {
    if (image.type != cmf::MediaSourceType::base64) return image.data;
    if (!image.media_type)
        throw ValueError("openai: " + place + ": a base64 image needs a media_type");
    return make_data_url(*image.media_type, image.data);
}

Json file_fields(const cmf::DocumentSource& doc, const std::string& place,
                 std::string_view url_key) {
    Json file = Json::object();
    if (doc.title) file["filename"] = *doc.title;
    if (doc.type == cmf::MediaSourceType::base64) {
        if (!doc.media_type)
            throw ValueError("openai: " + place + ": a base64 document needs a media_type");
        file["file_data"] = make_data_url(*doc.media_type, doc.data);
    } else if (doc.data.rfind("file-", 0) == 0) {
        file["file_id"] = doc.data;  // an uploaded file's id
    } else {
        file[std::string(url_key)] = doc.data;
    }
    return file;
}

cmf::PartPtr image_from_url(const std::string& url) {
    if (auto inline_data = parse_data_url(url)) {
        return cmf::ContentPart::make(cmf::ImageSource{cmf::MediaSourceType::base64,
                                                       inline_data->data, inline_data->media_type});
    }
    return cmf::ContentPart::make(cmf::ImageSource{cmf::MediaSourceType::url, url, std::nullopt});
}

cmf::PartPtr document_from_file(const wire::WireNode& file, std::string_view url_key) {
    cmf::DocumentSource doc;
    doc.title = file.optional_string("filename");
    if (auto data = file.find("file_data")) {
        doc.type = cmf::MediaSourceType::base64;
        if (auto inline_data = parse_data_url(data->string())) {
            doc.data = inline_data->data;
            doc.media_type = inline_data->media_type;
        } else {
            doc.data = data->string();
        }
    } else if (auto id = file.find("file_id")) {
        doc.data = id->string();
    } else if (auto url = file.find(url_key)) {
        doc.data = url->string();
    } else {
        file.fail("a file needs file_data, file_id or " + std::string(url_key));
    }
    return cmf::ContentPart::make(std::move(doc));
}

std::string part_place(std::size_t message, std::size_t part, const cmf::ContentPart& p) {
    return "message " + std::to_string(message) + " part " + std::to_string(part) + " (" +
           std::string(cmf::to_string(p.type())) + ")";
}

}  // namespace cmfpipe::openai
