#pragma once
// The pieces of a guarded Responses stream (responses_stream_guard.cpp): its output items by
// output_index, their text parts and what the client was sent of them, and the events the guard
// makes in the upstream's shapes (responses_stream_guard_items.cpp); the upstream's events read
// (responses_stream_guard_events.cpp); what the processors see (responses_stream_guard_view.cpp).
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "chat_logprobs.hpp"
#include "cmfpipe/json.hpp"
#include "cmfpipe/wire/held_text.hpp"
#include "cmfpipe/wire/sse.hpp"
#include "openai_wire.hpp"

namespace cmfpipe::openai::responses_stream {

// The kinds of streamed text: a message's output_text and refusal parts, a reasoning item's
// summary_text and reasoning_text parts.
enum class PartKind { output_text, refusal, summary_text, reasoning_text };

// How the upstream spells a kind: its delta and done events, the member of the done event and of
// the part that holds the text, the index member, the item's list ("content" | "summary"), the
// part's type and the item type that holds it.
struct KindNames {
    const char* delta;
    const char* done;
    const char* key;
    const char* index_key;
    const char* list;
    const char* part_type;
    const char* item_type;
};
const KindNames& names(PartKind kind);

struct TextPart {
    PartKind kind;
    std::size_t output_index;
    std::size_t index;  // content_index or summary_index
    std::string item_id;
    wire::HeldBackText text;
    std::string raw;             // all the upstream's text of the part: what the whole turn shows
    Json part = nullptr;         // the part object as it was added, its text blank
    Json delta_shape = nullptr;  // its last delta event: the shape of released text
    bool ended = false;          // its text went out whole (its done event, or the turn's end)
    // output_text: the logprob entries of its tokens, held with their text, and those sent.
    HeldLogprobs logprobs;
    Json logprobs_sent = Json::array();

    TextPart(PartKind kind_, std::size_t output_index_, std::size_t index_, std::string item_id_,
             std::size_t holdback)
        : kind(kind_),
          output_index(output_index_),
          index(index_),
          item_id(std::move(item_id_)),
          text(holdback, /*map_raw=*/kind_ == PartKind::output_text) {}
};

struct Item {
    enum class Type { message, reasoning, function_call, other } type = Type::other;
    Json json;  // the item as the upstream last gave it (output_item.added, then .done)
    std::map<std::size_t, TextPart> content, summary;  // by content_index / summary_index
    // A function_call: its events as they came, held until it is complete, and its arguments.
    std::vector<wire::SseEvent> held;
    std::string arguments;   // its argument deltas, joined
    bool item_done = false;  // its output_item.done came
    bool complete = false;   // guarded: released, changed or removed
    bool removed = false;    // the processors took it out: the client never hears of it
    bool done = false;       // its output_item.done went out: `sent` is what the client has
    Json sent = nullptr;

    std::map<std::size_t, TextPart>& parts(PartKind kind) {
        return kind == PartKind::summary_text ? summary : content;
    }
};

// Bounds output_index, content_index and summary_index (lists are padded up to them).
constexpr std::int64_t max_index = 100000;

Item::Type item_type(const Json& item);
const char* type_name(Item::Type type);

// `item` as the client has it: the text (and logprobs) of each part in `state` as sent, any other
// text (never shown to the processors) blank; everything else as in `item`.
Json client_item(const Item& state, Json item);
// A text part of an item added with text in it: blank (its text comes as deltas).
Json blank_texts(Json item);

// The output as the client has it: each item that went out (text as sent; a call as released),
// in order; from `upstream` (the terminal response's output) the newest form of each item and the
// items of other types no event announced. A message, reasoning or call no event carried is left
// out: the processors never saw it.
Json sent_output(const std::map<std::size_t, Item>& items, const Json* upstream);
// The string `key` of an object, "" when it has none.
std::string string_member(const Json& object, const char* key);

// An event the guard makes (named by its type); its sequence_number is set when it goes out.
wire::SseEvent made_event(Json data);
std::string dump(const Json& data);
// The part's text as its delta event carries it (the upstream's last delta event, or one made),
// with `logprobs` (an array of entries; null: the event's as they are).
wire::SseEvent delta_event(const TextPart& part, std::string text, const Json& logprobs);
// The events that close an open part with the text sent: its done event, then its part's done.
std::vector<wire::SseEvent> part_done_events(const TextPart& part);

// ---- responses_stream_guard_events.cpp: the upstream's events as the guard reads them.
enum class EventKind {
    snapshot,  // response.created / in_progress / queued
    item_added,
    item_done,
    part_added,
    part_done,
    text_delta,
    text_done,
    args_delta,
    args_done,
    terminal,  // response.completed / incomplete / failed
    error,
    other
};

// What one upstream event names, read strictly.
struct Read {
    EventKind kind = EventKind::other;
    PartKind part_kind = PartKind::output_text;
    bool tracked = true;  // a part event of a part kind the guard follows
    std::size_t output_index = 0;
    std::size_t index = 0;         // content_index or summary_index
    const Json* text = nullptr;    // a delta's text, or the whole text a done or added event has
    const Json* object = nullptr;  // the event's item, part or response
};
// `data` (an event's, which the pointers of the answer point into) against the items so far: a
// shape the guard cannot follow, or an event of an item that is not there or is done, is a
// ValueError naming its member.
Read read_event(const Json& data, const std::map<std::size_t, Item>& items);
// The kind of a content part by its type (a summary part is always summary_text).
std::optional<PartKind> content_kind(std::string_view type);

// ---- responses_stream_guard_view.cpp: what the processors see.
// On a step: the whole turn, a window of one text part (from `from` on), or one function call.
struct Scope {
    bool whole = false;
    TextPart* text = nullptr;
    std::size_t from = 0;
    std::optional<std::size_t> call{};
};

// A response body built for the processors, and the text part behind each content and summary
// entry of its output items.
struct View {
    Json body;
    std::vector<std::pair<std::vector<TextPart*>, std::vector<TextPart*>>> shown;

    TextPart* at(const OutputSlot& slot) const;
};

// `head`: the latest response snapshot; `sealed`: the request asked for sealed reasoning.
View view_of(const Scope& scope, std::map<std::size_t, Item>& items, const Json& head, bool sealed);
// The text the processors made of each part in `view`: the part they paired with it (a text or
// thinking part), "" when they removed it.
std::vector<std::pair<TextPart*, std::string>> processed_texts(
    const View& view, const OutputSlots& slots, const cmf::Message& before,
    const std::vector<cmf::Message>& after);

}  // namespace cmfpipe::openai::responses_stream
