// The upstream's events as a guarded Responses stream reads them: which kind each is, and what it
// names (output item, part, text), checked against the items so far.
#include <tuple>

#include "cmfpipe/errors.hpp"
#include "responses_stream_guard.hpp"

namespace cmfpipe::openai::responses_stream {
namespace {

using wire::WireNode;

const std::map<std::string, std::pair<EventKind, PartKind>, std::less<>>& event_kinds() {
    using K = EventKind;
    using P = PartKind;
    static const std::map<std::string, std::pair<EventKind, PartKind>, std::less<>> kinds = {
        {"response.created", {K::snapshot, P::output_text}},
        {"response.in_progress", {K::snapshot, P::output_text}},
        {"response.queued", {K::snapshot, P::output_text}},
        {"response.completed", {K::terminal, P::output_text}},
        {"response.incomplete", {K::terminal, P::output_text}},
        {"response.failed", {K::terminal, P::output_text}},
        {"response.output_item.added", {K::item_added, P::output_text}},
        {"response.output_item.done", {K::item_done, P::output_text}},
        {"response.content_part.added", {K::part_added, P::output_text}},
        {"response.content_part.done", {K::part_done, P::output_text}},
        {"response.reasoning_summary_part.added", {K::part_added, P::summary_text}},
        {"response.reasoning_summary_part.done", {K::part_done, P::summary_text}},
        {"response.output_text.delta", {K::text_delta, P::output_text}},
        {"response.output_text.done", {K::text_done, P::output_text}},
        {"response.refusal.delta", {K::text_delta, P::refusal}},
        {"response.refusal.done", {K::text_done, P::refusal}},
        {"response.reasoning_summary_text.delta", {K::text_delta, P::summary_text}},
        {"response.reasoning_summary_text.done", {K::text_done, P::summary_text}},
        {"response.reasoning_text.delta", {K::text_delta, P::reasoning_text}},
        {"response.reasoning_text.done", {K::text_done, P::reasoning_text}},
        {"response.function_call_arguments.delta", {K::args_delta, P::output_text}},
        {"response.function_call_arguments.done", {K::args_done, P::output_text}},
        {"error", {K::error, P::output_text}},
    };
    return kinds;
}

}  // namespace

std::optional<PartKind> content_kind(std::string_view type) {
    if (type == "output_text") return PartKind::output_text;
    if (type == "refusal") return PartKind::refusal;
    if (type == "reasoning_text") return PartKind::reasoning_text;
    return std::nullopt;
}

Read read_event(const Json& data, const std::map<std::size_t, Item>& items) {
    const WireNode node("", data);
    Read read;
    auto found = event_kinds().find(node.at("type").string());
    if (found == event_kinds().end()) return read;
    std::tie(read.kind, read.part_kind) = found->second;
    switch (read.kind) {
        case EventKind::snapshot:
        case EventKind::terminal:
            read.object = &node.at("response").object().json();
            return read;
        case EventKind::error:
        case EventKind::other:
            return read;
        default:
            break;
    }
    const WireNode output_index = node.at("output_index");
    read.output_index = static_cast<std::size_t>(output_index.integer_in(0, max_index));
    const std::string n = std::to_string(read.output_index);
    const auto item = items.find(read.output_index);
    if (read.kind == EventKind::item_added) {
        if (item != items.end()) output_index.fail("output item " + n + " was added before");
        node.at("item").at("type").string();
        read.object = &node.at("item").json();
        return read;
    }
    if (item == items.end()) output_index.fail("no output item " + n + " was added");
    const Item& state = item->second;
    if (state.complete || state.done)
        output_index.fail("an event of output item " + n + " after it was done");
    if (read.kind == EventKind::item_done) {
        if (item_type(node.at("item").object().json()) != state.type) {
            node.at("item").at("type").fail(std::string("output item ") + n + " was added as a " +
                                            type_name(state.type));
        }
        read.object = &node.at("item").json();
        return read;
    }
    if (read.kind == EventKind::args_delta || read.kind == EventKind::args_done) {
        if (state.type != Item::Type::function_call)
            output_index.fail("output item " + n + " is no function_call");
        if (read.kind == EventKind::args_delta) {
            node.at("delta").string();
            read.text = &node.at("delta").json();
        }
        return read;
    }
    // The events of a text part.
    if (read.kind == EventKind::part_added || read.kind == EventKind::part_done) {
        const WireNode part = node.at("part");
        if (read.part_kind != PartKind::summary_text) {
            const auto kind = content_kind(part.at("type").string());
            read.tracked = kind.has_value();
            if (!read.tracked) return read;  // another kind of part: as it came
            read.part_kind = *kind;
        }
        read.object = &part.object().json();
        if (auto text = part.find(names(read.part_kind).key)) {
            text->string();
            read.text = &text->json();
        }
    } else if (read.kind == EventKind::text_delta) {
        node.at("delta").string();
        read.text = &node.at("delta").json();
    } else if (auto text = node.find(names(read.part_kind).key)) {
        text->string();
        read.text = &text->json();
    }
    const KindNames& kind = names(read.part_kind);
    read.index = static_cast<std::size_t>(node.at(kind.index_key).integer_in(0, max_index));
    if (std::string_view(kind.item_type) != type_name(state.type)) {
        node.at("type").fail("output item " + n + " is a " + type_name(state.type) + ", not a " +
                             kind.item_type);
    }
    return read;
}

}  // namespace cmfpipe::openai::responses_stream
