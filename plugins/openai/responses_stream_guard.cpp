// A streamed Responses API answer guarded event by event (cmfpipe/stream_guard.hpp), for a proxy
// that passes an upstream's events on to its client:
//   - output items are followed by output_index. A message's output_text and refusal parts and a
//     reasoning item's summary_text and reasoning_text parts are text, each a wire::HeldBackText:
//     on a delta the processors see a window of that part (read with read_responses_output,
//     mapped back part by part with wire::pair_parts), and what passed goes out in the upstream's
//     delta event (at once where the processors say the text is final, StreamGuardOptions::
//     final_length; the holdback the bound), with the logprob entries of the tokens whose text
//     it completes (chat_logprobs.hpp); the part's done events and its item's output_item.done
//     carry the text (and entries) that went out, never the upstream's;
//   - a function_call item's events are held until its output_item.done (or the next item, or
//     the end), then the processors see the call (arguments that are not a JSON object as the
//     text part a request's are, wire/request_fields.hpp): passed, its events go out as they came;
//     changed, as the four events that carry it; removed, never (later items move up one
//     output_index);
//   - the terminal event (response.completed, .incomplete, .failed) ends the turn: the processors
//     see it whole once, and its response's output is what the client was sent;
//   - everything else (response.created, annotations, other item types and events) passes as it
//     came. Every event that goes out takes the next sequence_number, so the client's stay
//     consecutive whatever was held or dropped.
// A processor's stop (or a rewrite of text already sent) ends the turn as OpenAI's own filter
// does: what is open is closed with the text sent, then response.incomplete with
// incomplete_details.reason "content_filter" (or, with StreamStop::error_event, the error event).
#include <map>
#include <set>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/wire/guarded_stream_base.hpp"
#include "cmfpipe/wire/request_fields.hpp"
#include "openai_wire.hpp"
#include "responses_stream_guard.hpp"

namespace cmfpipe::openai {
namespace responses_stream {  // named: the plugin builds as one unit, next to the chat guard's
namespace {

using wire::SseEvent;
using wire::WireNode;
using Events = std::vector<SseEvent>;

constexpr std::string_view source = "openai responses stream";

// Whether the request asked for reasoning sealed with encrypted_content: then its summaries are
// sealed from their first delta (immutable in the pipeline), as the non-streamed answer's are.
bool asks_encrypted_reasoning(const Json& body) {
    if (!body.is_object()) return false;
    auto include = body.find("include");
    if (include == body.end() || !include->is_array()) return false;
    for (const Json& entry : *include) {
        if (entry == "reasoning.encrypted_content") return true;
    }
    return false;
}

// The client's first sequence_number: the upstream's, when it is one a client holds exactly
// (JavaScript's safe integers, 0 to 2^53), else 0. Counting on from it then never overflows.
std::int64_t first_sequence_number(const Json& number) {
    constexpr std::int64_t most = std::int64_t{1} << 53;
    if (number.is_number_unsigned())  // how a parsed JSON holds every integer >= 0
        return number.get<std::uint64_t>() <= std::uint64_t{most} ? number.get<std::int64_t>() : 0;
    const std::int64_t value = number.is_number_integer() ? number.get<std::int64_t>() : 0;
    return value >= 0 && value <= most ? value : 0;
}

class ResponsesStreamGuard final : public wire::GuardedStreamBase {
  public:
    ResponsesStreamGuard(StreamGuard guard, StreamGuardOptions stream_options, const Json& body,
                         Json options)
        : GuardedStreamBase(source, stream_options.stop),
          guard_(std::move(guard)),
          holdback_(stream_options.holdback),
          final_length_(std::move(stream_options.final_length)),
          options_(wire::with_shown_arguments(std::move(options))),
          sealed_(asks_encrypted_reasoning(body)) {}

    Events push_event(const SseEvent& event) override {
        Events out;
        if (ended_) return out;
        line_ = event.line;
        if (std::optional<Json> data = parse_object(event, out)) take(event, *data, out);
        return out;
    }

    void end_of_stream(Events& out) override { end_of_turn(nullptr, out); }
    void release_held(Events& out) override {
        for (auto& [index, item] : items_) {
            for (auto* parts : {&item.content, &item.summary}) {
                for (auto& [k, part] : *parts) release_rest(part, out);
            }
        }
    }

    // The Responses error event: its code ("stopped", "broken") and message; the type is the
    // event's own ("error").
    SseEvent error_event(std::string_view /*type*/, std::string_view code,
                         std::string_view message) const override {
        return made_event({{"type", "error"},
                           {"code", std::string(code)},
                           {"message", std::string(message)},
                           {"param", nullptr}});
    }

  private:
    void take(const SseEvent& event, const Json& data, Events& out) {
        Read read;
        try {
            read = read_event(data, items_);
        } catch (const ValueError& e) {
            broken(out, e.message());
            return;
        }
        switch (read.kind) {
            case EventKind::snapshot:
                return snapshot(event, data, read, out);
            case EventKind::item_added:
                return item_added(event, data, read, out);
            case EventKind::item_done:
                return item_done(event, data, read, out);
            case EventKind::part_added:
                return part_added(event, data, read, out);
            case EventKind::part_done:
                return part_done(event, data, read, out);
            case EventKind::text_delta:
                return text_delta(event, data, read, out);
            case EventKind::text_done:
                return text_done(event, data, read, out);
            case EventKind::args_delta:
                items_.at(read.output_index).arguments += read.text->get<std::string>();
                [[fallthrough]];
            case EventKind::args_done:
                items_.at(read.output_index).held.push_back(event);
                return;
            case EventKind::terminal:
                return terminal(event, data, read, out);
            case EventKind::error:  // the provider's own error: it ends the stream
                end_with(out, event);
                return;
            case EventKind::other:
                out.push_back(event);
                return;
        }
    }

    // ---- the events

    void snapshot(const SseEvent& event, const Json& data, const Read& read, Events& out) {
        head_ = *read.object;
        auto output = read.object->find("output");
        if (output == read.object->end() || !output->is_array() || output->empty()) {
            out.push_back(event);
            return;
        }
        Json shown = data;  // a snapshot with output: the output as the client has it
        shown["response"]["output"] = sent_output(items_, nullptr);
        out.push_back({event.event, dump(shown)});
    }

    void item_added(const SseEvent& event, const Json& data, const Read& read, Events& out) {
        if (!close_open_calls(out)) return;  // a call is complete when the next item starts
        Item& item = items_[read.output_index];
        item.json = *read.object;
        item.type = item_type(item.json);
        switch (item.type) {
            case Item::Type::function_call:
                item.arguments = string_member(item.json, "arguments");
                item.held.push_back(event);
                return;
            case Item::Type::other:
                content_sent_ = true;
                out.push_back(event);
                return;
            default:
                break;
        }
        Json blank = blank_texts(item.json);  // their text comes as deltas, or in done events
        if (blank == item.json) {
            out.push_back(event);
            return;
        }
        Json shown = data;
        shown["item"] = std::move(blank);
        out.push_back({event.event, dump(shown)});
    }

    void item_done(const SseEvent& event, const Json& data, const Read& read, Events& out) {
        Item& item = items_.at(read.output_index);
        switch (item.type) {
            case Item::Type::function_call:
                item.json = *read.object;
                item.item_done = true;
                item.held.push_back(event);
                close_call(read.output_index, out);
                return;
            case Item::Type::other:
                item.json = *read.object;
                item.sent = item.json;
                item.done = true;
                content_sent_ = true;
                out.push_back(event);
                return;
            default:
                break;
        }
        if (!take_texts(item, read.output_index, *read.object, /*end=*/true, out)) return;
        item.json = *read.object;
        item.sent = client_item(item, item.json);
        item.done = true;
        if (item.sent == item.json) {
            out.push_back(event);
            return;
        }
        Json shown = data;
        shown["item"] = item.sent;
        out.push_back({event.event, dump(shown)});
    }

    void part_added(const SseEvent& event, const Json& data, const Read& read, Events& out) {
        if (!read.tracked) {
            out.push_back(event);
            return;
        }
        TextPart& part = part_of(read);
        const char* key = names(part.kind).key;
        part.part = *read.object;
        part.part[key] = "";
        const std::string initial = read.text ? read.text->get<std::string>() : std::string();
        if (initial.empty()) {
            out.push_back(event);
            return;
        }
        Json shown = data;  // text in the added part is text like a delta's
        shown["part"][key] = "";
        out.push_back({event.event, dump(shown)});
        feed(part, initial, nullptr, out);
    }

    void text_delta(const SseEvent& event, const Json& data, const Read& read, Events& out) {
        TextPart& part = part_of(read);
        if (part.ended) {
            broken(out, "$.delta: a delta of a part after its text was done");
            return;
        }
        part.delta_shape = data;
        const std::string& delta = read.text->get_ref<const std::string&>();
        if (part.kind == PartKind::output_text) {  // one entry a token of the delta
            auto entries = data.find("logprobs");
            if (entries != data.end())
                part.logprobs.add(*entries, part.raw.size(), part.raw.size() + delta.size());
        }
        if (delta.empty()) {
            out.push_back(event);
            return;
        }
        feed(part, delta, &event, out);
    }

    void text_done(const SseEvent& event, const Json& data, const Read& read, Events& out) {
        TextPart& part = part_of(read);
        if (!end_part(part, read.text, out)) return;
        Json shown = data;
        shown[names(part.kind).key] = part.text.sent();
        if (part.kind == PartKind::output_text && shown.contains("logprobs"))
            shown["logprobs"] = part.logprobs_sent;
        out.push_back(shown == data ? event : SseEvent{event.event, dump(shown)});
    }

    void part_done(const SseEvent& event, const Json& data, const Read& read, Events& out) {
        if (!read.tracked) {
            out.push_back(event);
            return;
        }
        TextPart& part = part_of(read);
        if (!end_part(part, read.text, out)) return;
        Json shown = data;
        Json& whole = shown["part"];
        whole[names(part.kind).key] = part.text.sent();
        if (part.kind == PartKind::output_text && whole.contains("logprobs"))
            whole["logprobs"] = part.logprobs_sent;
        out.push_back(shown == data ? event : SseEvent{event.event, dump(shown)});
    }

    void terminal(const SseEvent& event, const Json& data, const Read& read, Events& out) {
        head_ = *read.object;
        auto upstream = read.object->find("output");
        const Json* output = upstream != read.object->end() ? &*upstream : nullptr;
        if (!end_of_turn(output, out)) return;
        Json shown = data;
        Json& response = shown["response"];
        response["output"] = sent_output(items_, output);
        if (response.contains("output_text") && response["output_text"].is_string()) {
            std::string joined;  // the SDKs' join of the text that went out
            for (const Json& item : response["output"]) {
                if (string_member(item, "type") != "message" || !item.contains("content")) continue;
                for (const Json& block : item["content"]) {
                    if (block.is_object() && string_member(block, "type") == "output_text")
                        joined += string_member(block, "text");
                }
            }
            response["output_text"] = joined;
        }
        if (shown == data) {
            out.push_back(event);
        } else {
            out.push_back({event.event, dump(shown)});
        }
        ended_ = true;
    }

    // ---- text

    TextPart& part_of(const Read& read) {
        Item& item = items_.at(read.output_index);
        return part_of(item, read.part_kind, read.output_index, read.index);
    }
    TextPart& part_of(Item& item, PartKind kind, std::size_t output_index, std::size_t index) {
        auto& parts = item.parts(kind);
        auto found = parts.find(index);
        if (found == parts.end()) {
            found = parts
                        .try_emplace(index, kind, output_index, index,
                                     string_member(item.json, "id"), holdback_)
                        .first;
        }
        return found->second;
    }

    // New upstream text for `part` (a delta's, or text an added or done event carried): the
    // processors see the part's window, and what passed goes out in a delta event (`event` itself
    // when the text is all of its delta). False when they stopped the turn.
    bool feed(TextPart& part, std::string_view text, const SseEvent* event, Events& out) {
        part.raw += text;
        part.text.add(text);
        if (!run_guard(Scope{.text = &part}, out)) return false;
        std::string now = part.text.release(false, final_length_);
        narrow_window(part);
        send(part, std::move(now), event, text, out);
        return true;
    }

    // All the text of `part` that passed goes out.
    void release_rest(TextPart& part, Events& out) {
        send(part, part.text.release(true), nullptr, {}, out);
    }

    // `text` of `part` goes out in a delta event, with the logprob entries of the tokens whose
    // text has all gone out by now (chat_logprobs.hpp): `upstream` itself when its delta was
    // `delta` and it carries just that.
    void send(TextPart& part, std::string text, const SseEvent* upstream, std::string_view delta,
              Events& out) {
        Json entries = nullptr;
        if (part.kind == PartKind::output_text) {
            entries = Json::array();
            for (Json& entry :
                 part.logprobs.release(part.text.raw_released(), part.text.take_rewrites())) {
                part.logprobs_sent.push_back(entry);
                entries.push_back(std::move(entry));
            }
        }
        if (text.empty() && (entries.is_null() || entries.empty())) return;
        if (!text.empty()) content_sent_ = true;
        if (upstream && text == delta &&
            (entries.is_null() || part.delta_shape.value("logprobs", Json::array()) == entries)) {
            out.push_back(*upstream);
            return;
        }
        out.push_back(delta_event(part, std::move(text), entries));
    }

    // The part's text is done; `whole`: the whole text as a done event has it. More than the
    // deltas carried is text like a delta's; text that does not follow them is not what the
    // client gets (the done events carry the text sent).
    bool end_part(TextPart& part, const Json* whole, Events& out) {
        if (part.ended) return true;
        if (whole && whole->is_string()) {
            const std::string& text = whole->get_ref<const std::string&>();
            if (text.size() > part.raw.size() && text.starts_with(part.raw) &&
                !feed(part, std::string_view(text).substr(part.raw.size()), nullptr, out))
                return false;
        }
        release_rest(part, out);
        part.ended = true;
        return true;
    }

    // The text parts of `item_json` (an output_item.done's item, or the terminal response's):
    // their text beyond what the deltas carried, fed; with `end`, every part of the item ended.
    bool take_texts(Item& item, std::size_t output_index, const Json& item_json, bool end,
                    Events& out) {
        for (const char* list : {"content", "summary"}) {
            auto entries = item_json.find(list);
            if (entries == item_json.end() || !entries->is_array()) continue;
            const std::size_t count = std::min<std::size_t>(entries->size(), max_index);
            for (std::size_t k = 0; k < count; ++k) {
                const Json& entry = (*entries)[k];
                if (!entry.is_object()) continue;
                const std::string type = string_member(entry, "type");
                std::optional<PartKind> kind = std::string_view(list) == "summary"
                                                   ? std::optional(PartKind::summary_text)
                                                   : content_kind(type);
                if (!kind || names(*kind).item_type != std::string(type_name(item.type))) continue;
                auto text = entry.find(names(*kind).key);
                if (text == entry.end() || !text->is_string()) continue;
                TextPart& part = part_of(item, *kind, output_index, k);
                if (end) {
                    if (!end_part(part, &*text, out)) return false;
                } else if (!part.ended) {
                    const std::string& whole = text->get_ref<const std::string&>();
                    if (whole.size() > part.raw.size() && whole.starts_with(part.raw) &&
                        !feed(part, std::string_view(whole).substr(part.raw.size()), nullptr, out))
                        return false;
                }
            }
        }
        if (!end) return true;
        for (auto* parts : {&item.content, &item.summary}) {
            for (auto& [k, part] : *parts) {
                if (!end_part(part, nullptr, out)) return false;
            }
        }
        return true;
    }

    // ---- the processors

    // Runs the processors over `scope`. False when they stopped the turn or rewrote text already
    // sent: the stop's ending is out (stop()) and the stream ended.
    bool run_guard(const Scope& scope, Events& out) {
        view_ = view_of(scope, items_, head_, sealed_);
        if (view_.body["output"].empty()) return true;
        std::vector<cmf::Message> turn;
        OutputSlots slots;
        // Built from upstream data only: what does not read (arguments too deep to be shown
        // among it) is the upstream's.
        if (!read_upstream(out, [&] {
                turn = read_responses_output(WireNode("the turn so far", view_.body), options_,
                                             &slots);
            }))
            return false;
        GuardVerdict verdict = guard_(turn);
        if (verdict.stopped) {
            stop(out, verdict.reason);
            return false;
        }
        verdict_ = std::move(verdict.messages);
        for (auto& [part, text] : processed_texts(view_, slots, turn[0], verdict_)) {
            if (!(scope.whole ? part->text.update_whole(text) : part->text.update(text))) {
                stop(out, wire::sent_text_changed);
                return false;
            }
        }
        return true;
    }

    // A part whose window holds much sent text starts it later, where the processors, shown the
    // shorter window alone, make of it the tail of what they made of the longer one: this extra
    // run keeps a step's cost bounded. It decides nothing about the stream.
    void narrow_window(TextPart& part) {
        const std::optional<std::size_t> cut = part.text.narrowing_cut();
        if (!cut) return;
        const View view = view_of(Scope{.text = &part, .from = *cut}, items_, head_, sealed_);
        std::vector<cmf::Message> turn;
        OutputSlots slots;
        try {
            turn = read_responses_output(WireNode("the window", view.body), options_, &slots);
        } catch (const ValueError&) {
            return;
        }
        GuardVerdict verdict = guard_(turn);
        if (verdict.stopped) return;
        std::string tail;
        for (auto& [shown, text] : processed_texts(view, slots, turn[0], verdict.messages)) {
            if (shown == &part) tail = std::move(text);
        }
        part.text.narrow(*cut, tail);
    }

    // ---- function calls

    bool close_open_calls(Events& out) {
        for (auto& [index, item] : items_) {
            if (item.type == Item::Type::function_call && !item.complete && !close_call(index, out))
                return false;
        }
        return true;
    }

    // The call at `index` is complete: the processors see it. Passed unchanged (and its deltas
    // add up to its arguments), its held events go out as they came; changed, the four events
    // that carry it; removed, nothing, and later items move up one output_index.
    bool close_call(std::size_t index, Events& out) {
        Item& item = items_.at(index);
        item.complete = true;
        if (!item.item_done) item.json["arguments"] = item.arguments;
        if (!run_guard(Scope{.call = index}, out)) return false;
        const Json& before = view_.body["output"][0];
        const Json processed = with_responses_response_messages(view_.body, verdict_, options_);
        const Json* after = nullptr;
        for (const Json& candidate : processed["output"]) {
            if (string_member(candidate, "type") == "function_call" &&
                string_member(candidate, "call_id") == string_member(before, "call_id")) {
                after = &candidate;
                break;
            }
        }
        if (!after) {
            item.removed = true;
            removed_.insert(static_cast<std::int64_t>(index));
        } else if (*after == before && item.item_done &&
                   item.arguments == string_member(before, "arguments")) {
            for (SseEvent& event : item.held) out.push_back(std::move(event));
        } else {
            Json added = *after;
            added["arguments"] = "";
            if (added.contains("status")) added["status"] = "in_progress";
            const std::string id = string_member(*after, "id");
            const std::string arguments = string_member(*after, "arguments");
            out.push_back(made_event({{"type", "response.output_item.added"},
                                      {"output_index", index},
                                      {"item", added}}));
            out.push_back(made_event({{"type", "response.function_call_arguments.delta"},
                                      {"item_id", id},
                                      {"output_index", index},
                                      {"delta", arguments}}));
            out.push_back(made_event({{"type", "response.function_call_arguments.done"},
                                      {"item_id", id},
                                      {"output_index", index},
                                      {"arguments", arguments}}));
            out.push_back(made_event({{"type", "response.output_item.done"},
                                      {"output_index", index},
                                      {"item", *after}}));
        }
        item.held.clear();
        if (!item.removed) {
            item.sent = after ? *after : before;
            item.done = true;
            content_sent_ = true;
        }
        return true;
    }

    // ---- the end

    // The turn is over (the terminal event, whose response has `output`, or the body's end):
    // calls still open complete, the processors see the whole turn once more, and all that is
    // held goes out. A part whose text was done must not change.
    bool end_of_turn(const Json* output, Events& out) {
        if (!close_open_calls(out)) return false;
        if (output && output->is_array()) {
            for (auto& [index, item] : items_) {
                if ((item.type == Item::Type::message || item.type == Item::Type::reasoning) &&
                    !item.done && index < output->size() && (*output)[index].is_object() &&
                    !take_texts(item, index, (*output)[index], /*end=*/false, out))
                    return false;
            }
        }
        if (!run_guard(Scope{.whole = true}, out)) return false;
        for (auto& [index, item] : items_) {
            for (auto* parts : {&item.content, &item.summary}) {
                for (auto& [k, part] : *parts) {
                    if (part.ended && !part.text.held().empty()) {
                        stop(out, wire::sent_text_changed);
                        return false;
                    }
                    release_rest(part, out);
                    part.ended = true;
                }
            }
        }
        return true;
    }

    // OpenAI's own content-filter ending: each open part done with the text sent, each open item
    // done "incomplete", then response.incomplete with incomplete_details.reason "content_filter"
    // and the output sent. Held text and calls are dropped: they are what was stopped.
    Events filter_ending(std::string_view /*reason*/) override {
        Events ending;
        for (auto& [index, item] : items_) {
            if ((item.type != Item::Type::message && item.type != Item::Type::reasoning) ||
                item.done)
                continue;
            for (auto* parts : {&item.summary, &item.content}) {
                for (auto& [k, part] : *parts) {
                    if (part.ended) continue;
                    for (SseEvent& event : part_done_events(part))
                        ending.push_back(std::move(event));
                    part.ended = true;
                }
            }
            Json closed = client_item(item, item.json);
            if (closed.contains("status")) closed["status"] = "incomplete";
            item.sent = closed;
            item.done = true;
            ending.push_back(made_event({{"type", "response.output_item.done"},
                                         {"output_index", index},
                                         {"item", closed}}));
        }
        Json response = head_.is_object() ? head_ : Json{{"object", "response"}};
        response["status"] = "incomplete";
        response["incomplete_details"] = {{"reason", "content_filter"}};
        response["output"] = sent_output(items_, nullptr);
        ending.push_back(made_event({{"type", "response.incomplete"}, {"response", response}}));
        return ending;
    }

    // Each event out takes the next sequence_number (from the upstream's first), and an
    // output_index after a removed call moves up.
    void released(Events& out) override { renumber(out); }
    void renumber(Events& out) {
        for (SseEvent& event : out) {
            Json data = Json::parse(event.data, nullptr, /*allow_exceptions=*/false);
            if (!data.is_object()) continue;
            bool changed = false;
            if (auto number = data.find("sequence_number"); number != data.end()) {
                if (!next_number_) next_number_ = first_sequence_number(*number);
                if (*number != *next_number_) {
                    *number = *next_number_;
                    changed = true;
                }
                ++*next_number_;
            }
            auto index = data.find("output_index");
            if (!removed_.empty() && index != data.end() && index->is_number_integer()) {
                const auto at = index->get<std::int64_t>();
                const auto shift = std::distance(removed_.begin(), removed_.lower_bound(at));
                if (shift > 0) {
                    *index = at - shift;
                    changed = true;
                }
            }
            if (changed) event.data = dump(data);
        }
    }

    StreamGuard guard_;
    std::size_t holdback_;
    FinalLength final_length_;  // empty: the holdback alone decides what is held
    Json options_;
    bool sealed_;  // the request asked for reasoning.encrypted_content
    Json head_;    // the latest response snapshot (created, in_progress, the terminal one)
    std::map<std::size_t, Item> items_;  // by the upstream's output_index
    std::set<std::int64_t> removed_;     // the output_index of each call the processors removed
    std::optional<std::int64_t> next_number_;
    View view_;  // what the processors last saw, and what they made of it
    std::vector<cmf::Message> verdict_;
};

}  // namespace
}  // namespace responses_stream

std::unique_ptr<GuardedStream> guard_responses_stream(StreamGuard guard,
                                                      const StreamGuardOptions& stream_options,
                                                      const Json& body, Json options) {
    return std::make_unique<responses_stream::ResponsesStreamGuard>(
        std::move(guard), stream_options, body, std::move(options));
}

}  // namespace cmfpipe::openai
