// host/answer_bound.hpp.
#include "cmfpipe/core/host/answer_bound.hpp"

#include "cmfpipe/cmf/content.hpp"
#include "cmfpipe/cmf/json.hpp"
#include "json_text_writer.hpp"

namespace cmfpipe::host {
namespace {

constexpr unsigned indent_step = 2;
// Room an answer's text starts with: a small request body's in one allocation.
constexpr std::size_t answer_reserved = 1024;

// The fewest bytes a message and a part take in CMF JSON as dump(2) writes it: a message's
// schema_version, role, content and channel lines at 4 spaces in; a part's braces at 6 and its
// content_type line at 8.
constexpr std::size_t message_floor = 64;
constexpr std::size_t part_floor = 40;

}  // namespace

AnswerTooLarge::~AnswerTooLarge() = default;

void AnswerBound::fail(std::string_view what) const {
    throw AnswerTooLarge("the answer is over " + name + " " + std::to_string(max_bytes) +
                         " bytes (" + std::string(what) + ")");
}

std::size_t cmf_json_floor(const std::vector<cmf::Message>& messages) {
    std::size_t total = 0;
    for (const cmf::Message& message : messages) {
        total += message_floor;
        for (const cmf::PartPtr& part : message.content()) {
            total += part_floor;
            if (const std::string* text = part->text_if()) total += text->size();
        }
    }
    return total;
}

std::size_t expansion_floor(std::string_view rendered, const RequestContext& request) {
    std::size_t total = 0;
    for (const auto& [token, input] : request.rich_inputs) {
        if (input.kind != RichKind::thread || !input.value.is_array()) continue;
        std::size_t places = 0;
        for (std::size_t at = rendered.find(token); at != std::string_view::npos;
             at = rendered.find(token, at + token.size()))
            ++places;
        if (places == 0) continue;
        std::size_t one = 0;
        for (const Json& message : input.value) {
            one += message_floor;
            const auto content = message.is_object() ? message.find("content") : message.end();
            if (content == message.end() || !content->is_array()) continue;
            for (const Json& part : *content) {
                one += part_floor;
                if (part.is_string()) one += part.get_ref<const std::string&>().size();
            }
        }
        total += places * one;
    }
    return total;
}

std::string dump_within(const Json& value, const AnswerBound& bound) {
    std::string text;
    text.reserve(answer_reserved);
    JsonTextWriter writer(text, bound, indent_step);
    writer.value(value, 0);
    writer.raw("\n");
    return text;
}

std::string dump_messages_within(const std::vector<cmf::Message>& messages,
                                 const AnswerBound& bound) {
    std::string text;
    JsonTextWriter writer(text, bound, indent_step);
    if (messages.empty()) {
        writer.raw("[]\n");
        return text;
    }
    // As the serializer writes an array: "[\n", each element indented, ",\n" between, "\n]".
    const std::string indent(indent_step, ' ');
    writer.raw("[\n");
    for (std::size_t i = 0; i < messages.size(); ++i) {
        if (i > 0) writer.raw(",\n");
        writer.raw(indent);
        writer.value(cmf::message_to_json(messages[i]), indent_step);
    }
    writer.raw("\n]\n");
    return text;
}

}  // namespace cmfpipe::host
