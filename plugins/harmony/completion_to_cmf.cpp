// Harmony messages -> CMF (see completion_to_cmf.hpp).
#include "completion_to_cmf.hpp"

#include <map>

#include "cmfpipe/wire/tool_arguments.hpp"

namespace cmfpipe::harmony {
namespace {

using cmf::ContentPart;

const std::string default_content_type = "<|constrain|>json";

struct Split {
    std::optional<std::string> ns;
    std::string name;
};

// "functions.get_weather" -> {nullopt, get_weather}; "browser.search" -> {browser, search}.
Split split_recipient(const std::string& recipient) {
    auto dot = recipient.find('.');
    if (dot == std::string::npos) return {std::nullopt, recipient};
    std::string ns = recipient.substr(0, dot);
    return {ns == "functions" ? std::nullopt : std::optional<std::string>(ns),
            recipient.substr(dot + 1)};
}

std::string tool_name_of(const std::string& author) {
    return author.rfind("functions.", 0) == 0 ? author.substr(10) : author;
}

bool addressed_to_tool(const std::optional<std::string>& recipient) {
    return recipient && *recipient != "assistant" && *recipient != "all" && *recipient != "user";
}

std::optional<cmf::StopReason> stop_reason(const std::optional<Marker>& stop) {
    if (!stop) return std::nullopt;
    switch (*stop) {
        case Marker::end:
            return cmf::StopReason::end;
        case Marker::return_:
            return cmf::StopReason::return_;
        case Marker::call:
            return cmf::StopReason::call;
        default:
            return std::nullopt;
    }
}

}  // namespace

class CmfMapping::Mapper {
  public:
    cmf::Message map(const RawMessage& r) {
        const Header& h = r.header;
        Json harmony = Json::object();
        std::string pending;
        Json flagged = Json::object();  // custom.invalid_tool_arguments, when a call has them
        cmf::Content parts;

        auto channel = h.channel ? cmf::enum_from_string<cmf::Channel>(*h.channel) : std::nullopt;
        if (h.channel && !channel) harmony["channel"] = *h.channel;
        const auto role = cmf::enum_from_string<cmf::Role>(h.role).value_or(cmf::Role::assistant);
        const bool has_body = !r.content.empty() || !r.incomplete;

        if (role == cmf::Role::tool) {
            const std::string author = h.author.value_or("tool");
            if (h.recipient) harmony["recipient"] = *h.recipient;
            parts.push_back(ContentPart::make(
                cmf::ToolResult{answer(author), tool_name_of(author), Json(r.content), false}));
        } else if (role == cmf::Role::assistant && addressed_to_tool(h.recipient)) {
            map_call(r, harmony, pending, flagged, parts);
        } else {
            if (h.recipient) harmony["recipient"] = *h.recipient;
            if (h.content_type) harmony["content_type"] = *h.content_type;
            if (has_body) {
                const bool thinking =
                    role == cmf::Role::assistant && channel == cmf::Channel::analysis;
                parts.push_back(thinking ? ContentPart::thinking(r.content)
                                         : ContentPart::text(r.content));
            }
        }

        // custom in a fixed order: harmony, incomplete, pending, invalid_tool_arguments.
        Json custom = Json::object();
        if (!harmony.empty()) custom["harmony"] = std::move(harmony);
        if (r.incomplete) custom["incomplete"] = true;
        pending += r.pending;
        if (!pending.empty()) custom["pending"] = std::move(pending);
        custom.update(flagged);

        auto ext = std::make_shared<cmf::Extensions>();
        if (role == cmf::Role::assistant) {
            auto completion = std::make_shared<cmf::CompletionExtension>();
            completion->stop_reason = stop_reason(r.stop);
            completion->raw_format = "harmony";
            ext->completion = std::move(completion);
        }
        if (!custom.empty()) ext->custom = std::make_shared<const Json>(std::move(custom));
        return cmf::Message(role, std::move(parts), channel,
                            ext->empty() ? nullptr : std::move(ext));
    }

  private:
    void map_call(const RawMessage& r, Json& harmony, std::string& pending, Json& flagged,
                  cmf::Content& parts) {
        const Header& h = r.header;
        const std::string& recipient = *h.recipient;
        if (h.content_type != default_content_type)
            harmony["content_type"] = h.content_type ? Json(*h.content_type) : Json(nullptr);
        // JSON is what the content type says, or what function calls take when it says nothing.
        const bool json_declared = h.content_type
                                       ? h.content_type->find("json") != std::string::npos
                                       : recipient.rfind("functions.", 0) == 0;

        wire::ToolArguments arguments = wire::tool_arguments_from_text(r.content);
        if (!arguments.error || (json_declared && !r.incomplete)) {
            // A call; arguments that are not an object follow the one policy: no part, the raw
            // text flagged in custom.invalid_tool_arguments.
            Split s = split_recipient(recipient);
            cmf::ToolCall call{"call_" + std::to_string(++calls_), s.name, Json::object(), s.ns};
            open_calls_[recipient].push_back(call.tool_call_id);
            if (arguments.error) {
                wire::flag_invalid_tool_arguments(flagged, call, arguments);
            } else {
                call.arguments = std::move(arguments.object);
                parts.push_back(ContentPart::make(std::move(call)));
            }
            return;
        }
        harmony["recipient"] = recipient;
        if (r.incomplete) {  // arguments still being written: keep them, make no part yet
            pending = r.content;
            return;
        }
        parts.push_back(ContentPart::text(r.content));  // code for python, a browser query, ...
    }

    // The id of the latest unanswered call to `author`, which this result answers.
    std::string answer(const std::string& author) {
        auto it = open_calls_.find(author);
        if (it == open_calls_.end() || it->second.empty()) return "";
        std::string id = it->second.back();
        it->second.pop_back();
        return id;
    }

    int calls_ = 0;
    std::map<std::string, std::vector<std::string>> open_calls_;
};

CmfMapping::CmfMapping() : mapper_(std::make_unique<Mapper>()) {}
CmfMapping::~CmfMapping() = default;

cmf::Message CmfMapping::map(const RawMessage& raw) {
    return mapper_->map(raw);
}

std::vector<cmf::Message> to_cmf(const std::vector<RawMessage>& raw) {
    CmfMapping mapping;
    std::vector<cmf::Message> out;
    out.reserve(raw.size());
    for (const auto& r : raw) out.push_back(mapping.map(r));
    return out;
}

}  // namespace cmfpipe::harmony
