// The forms a thread input may arrive in, normalized to one list of messages.
#include "cmfpipe/core/prompty/render.hpp"
#include "cmfpipe/errors.hpp"

namespace cmfpipe::prompty {
namespace {

Json normalize_message(const Json& message, const std::string& input_name, std::size_t index) {
    auto fail = [&](const std::string& why) -> Json {
        throw ValueError("thread input '" + input_name + "': message " + std::to_string(index) +
                         " " + why);
    };
    if (!message.is_object()) return fail("is not an object");
    auto role = message.find("role");
    if (role == message.end() || !role->is_string()) return fail("has no role");
    Json out = message;
    auto content = message.find("content");
    if (content == message.end() || content->is_null()) {
        out["content"] = Json::array();
    } else if (content->is_string()) {
        out["content"] = Json::array({{{"kind", "text"}, {"value", *content}}});
    } else if (!content->is_array()) {
        return fail("has content that is neither text nor a list of parts");
    }
    return out;
}

}  // namespace

Json normalize_thread(const Json& value, const std::string& input_name) {
    const Json* messages = &value;
    if (value.is_object()) {
        auto inner = value.find("messages");
        if (inner == value.end()) {
            throw ValueError("thread input '" + input_name +
                             "' must be a list of messages (or {\"messages\": [...]})");
        }
        messages = &*inner;
    }
    if (!messages->is_array()) {
        throw ValueError("thread input '" + input_name + "' must be a list of messages, not " +
                         std::string(messages->type_name()));
    }
    Json out = Json::array();
    for (std::size_t i = 0; i < messages->size(); ++i)
        out.push_back(normalize_message((*messages)[i], input_name, i));
    return out;
}

}  // namespace cmfpipe::prompty
