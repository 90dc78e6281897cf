// A streamed Messages API response guarded event by event (cmfpipe/stream_guard.hpp), for a proxy
// that passes an upstream's events on to its client:
//   - every event is added up by MessageSoFar (stream.cpp). On a step the processors see a
//     window of the message, whatever its length: the block in hand, a text or thinking block as
//     wire::HeldBackText's window (the text not sent yet and some sent text before it); at the end
//     of the message they see it whole. The window is read with read_response and what the
//     processors made of it is mapped back with with_body_response_messages, so the text each
//     block may release is the processed one;
//   - text and thinking deltas go out held back by wire::HeldBackText, in events shaped like the
//     upstream's; the held text of a block goes out before its content_block_stop (or the
//     signature_delta that ends a thinking block), message_delta and message_stop;
//   - a tool_use block's events are held until its content_block_stop, then guarded with the
//     message (an input that is not a JSON object shown as the text part a request's is,
//     wire/request_fields.hpp): passed, they go out as they came; changed, as the minimal
//     start/delta/stop;
//   - everything else (message_start, ping, other blocks) passes as it came.
// A processor's stop (or a rewrite of text already sent) ends the message as Anthropic's own
// refusal does: the open block stops, message_delta with stop_reason "refusal", message_stop (or,
// with StreamStop::error_event, the error event "stopped").
#include <optional>
#include <set>
#include <span>

#include "anthropic_wire.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/json_parse.hpp"
#include "cmfpipe/wire/guarded_stream_base.hpp"
#include "cmfpipe/wire/held_events.hpp"
#include "cmfpipe/wire/held_text.hpp"
#include "cmfpipe/wire/request_fields.hpp"
#include "stream_guard_plain_delta.hpp"

namespace cmfpipe::anthropic {
namespace {

using wire::SseEvent;
using Events = std::vector<SseEvent>;

constexpr std::string_view source = "anthropic stream";

SseEvent named_event(const char* name, const Json& data) {
    return {name, data.dump(-1, ' ', false, Json::error_handler_t::replace)};
}

struct BlockState {
    enum class Kind { text, thinking, tool_use, other } kind = Kind::other;
    std::optional<wire::HeldBackText> text;  // text and thinking blocks
    // The plain deltas whose text is all the block holds, to go out as they came (none when it
    // holds text that came otherwise, or that a processor changed).
    wire::HeldEvents events{};
    // Its last delta event: the shape of released text (made from `delta_shape_data`, a plain
    // delta's data not parsed as it passed, when that is newer).
    mutable Json delta_shape;
    mutable std::string delta_shape_data;
    mutable bool delta_shape_stale = false;
    // The newest such data is that of the block's last held event: copied into
    // delta_shape_data once, when the run of deltas settles, not on every delta.
    bool delta_shape_held = false;
    Events held;            // a tool_use block's events
    bool complete = false;  // a tool_use block's content_block_stop came

    const char* key() const { return kind == Kind::thinking ? "thinking" : "text"; }
    const char* delta_type() const {
        return kind == Kind::thinking ? "thinking_delta" : "text_delta";
    }
};

bool is_block_event(EventKind kind) {
    return kind == EventKind::text_delta || kind == EventKind::signature_delta ||
           kind == EventKind::input_json_delta || kind == EventKind::block_stop;
}

BlockState::Kind kind_of(const Json& block) {
    const std::string type = block.value("type", "");
    if (type == "text") return BlockState::Kind::text;
    if (type == "thinking") return BlockState::Kind::thinking;
    if (type == "tool_use") return BlockState::Kind::tool_use;
    return BlockState::Kind::other;
}

// What the processors see on a step: the whole message (complete blocks only), or these blocks.
struct Scope {
    bool whole = false;
    std::vector<std::size_t> blocks{};
};

constexpr std::size_t not_shown = static_cast<std::size_t>(-1);

// The string `key` of a block, "" when it has none.
std::string block_text(const Json& block, const char* key) {
    auto it = block.find(key);
    return it != block.end() && it->is_string() ? it->get<std::string>() : std::string();
}

class MessagesStreamGuard final : public wire::GuardedStreamBase {
  public:
    MessagesStreamGuard(StreamGuard guard, StreamGuardOptions stream_options, Json options)
        : GuardedStreamBase(source, stream_options.stop),
          guard_(std::move(guard)),
          holdback_(stream_options.holdback),
          final_length_(std::move(stream_options.final_length)),
          processors_(stream_options.processors),
          options_(wire::with_shown_arguments(std::move(options))) {}

    Events push_event(const SseEvent& event) override {
        Events out;
        if (ended_) return out;
        line_ = event.line;
        if (read_plain_text_delta(event.data, plain_) && plain_fits(plain_)) {
            if (!passed_at_once(event, out)) {
                const bool held_whole = add_plain_delta(SseEvent(event));
                settle_plain_deltas(plain_.index, held_whole, out);
            }
            return out;
        }
        std::optional<Json> data = parse_object(event, out);
        if (!data) return out;
        BlockEvent added;
        try {
            const wire::WireNode node("", *data);
            added = so_far_.add(node);
            if (added.kind == EventKind::message_start && !so_far_.message()["content"].empty()) {
                // Blocks come as content_block events, each guarded; none passes unseen in here.
                node.at("message").at("content").fail(
                    "a message_start that carries content is not guarded");
            } else if (added.kind == EventKind::block_start) {
                blocks_.emplace_back().kind = kind_of((*data)["content_block"]);
            } else if (is_block_event(added.kind) && blocks_[added.index].complete) {
                node.at("index").fail("an event of a tool_use block after its content_block_stop");
            } else if (added.kind == EventKind::text_delta &&
                       kind_of(so_far_.message()["content"][added.index]) !=
                           (node.at("delta").at("type").string() == "text_delta"
                                ? BlockState::Kind::text
                                : BlockState::Kind::thinking)) {
                node.at("delta").at("type").fail("a delta of another type than its block");
            }
        } catch (const ValueError& e) {
            broken(out, e.message());
            return out;
        }
        take_event(event, *data, added, out);
        return out;
    }

    void end_of_stream(Events& out) override { end_of_message(out); }
    void release_held(Events& out) override {
        for (std::size_t i = 0; i < blocks_.size(); ++i) release_rest(i, out);
    }

    // Anthropic's error names one type: the code ("stopped", "broken"), as serve's error bodies.
    SseEvent error_event(std::string_view /*type*/, std::string_view code,
                         std::string_view message) const override {
        return named_event(
            "error", {{"type", "error"},
                      {"error", {{"type", std::string(code)}, {"message", std::string(message)}}}});
    }

  private:
    // Which blocks the client has open (their content_block_start went out, their stop not yet),
    // and whether part of the answer went out: a delta, or the start of a block that carries some
    // (a tool_use's name, text in the start itself). message_start, ping, an empty text or
    // thinking start and an empty text delta are no part of it.
    void released(Events& out) override {
        for (const SseEvent& event : out) {
            const bool delta = event.event == "content_block_delta";
            if (delta && content_sent_) continue;
            const bool start = event.event == "content_block_start";
            if (!delta && !start && event.event != "content_block_stop") continue;
            const JsonParse data = try_parse_json(event.data);
            if (!data.value || !data.value->is_object()) continue;
            if (delta) {
                const Json part = data.value->value("delta", Json::object());
                const std::string type = part.is_object() ? part.value("type", "") : "";
                const char* key = type == "thinking_delta" ? "thinking" : "text";
                if ((type != "text_delta" && type != "thinking_delta") ||
                    !block_text(part, key).empty())
                    content_sent_ = true;
                continue;
            }
            const Json index = data.value->value("index", Json());
            if (!index.is_number_unsigned()) continue;
            if (!start) {
                open_out_.erase(index.get<std::size_t>());
                continue;
            }
            open_out_.insert(index.get<std::size_t>());
            const Json block = data.value->value("content_block", Json::object());
            const BlockState::Kind kind =
                block.is_object() ? kind_of(block) : BlockState::Kind::other;
            const bool text_kind =
                kind == BlockState::Kind::text || kind == BlockState::Kind::thinking;
            if (!text_kind ||
                !block_text(block, kind == BlockState::Kind::thinking ? "thinking" : "text")
                     .empty())
                content_sent_ = true;
        }
    }

    // The provider's own refusal ending: each block the client has open stops, then
    // message_delta with stop_reason "refusal" (and the usage known so far) and message_stop.
    // Held text and tool calls are dropped: they are what was stopped.
    Events filter_ending(std::string_view /*reason*/) override {
        Events out;
        for (std::size_t index : open_out_) {
            out.push_back(named_event("content_block_stop",
                                      {{"type", "content_block_stop"}, {"index", index}}));
        }
        open_out_.clear();
        Json usage = Json::object();
        if (so_far_.message().is_object()) usage = so_far_.message().value("usage", usage);
        if (!usage.is_object() || !usage.contains("output_tokens")) usage["output_tokens"] = 0;
        out.push_back(named_event(
            "message_delta", {{"type", "message_delta"},
                              {"delta", {{"stop_reason", "refusal"}, {"stop_sequence", nullptr}}},
                              {"usage", std::move(usage)}}));
        out.push_back(named_event("message_stop", {{"type", "message_stop"}}));
        return out;
    }

    void take_event(const SseEvent& event, const Json& data, const BlockEvent& added, Events& out) {
        switch (added.kind) {
            case EventKind::error:  // the provider's own error: it ends the stream
                end_with(out, event);
                return;
            case EventKind::block_start:
                start_block(event, data, added.index, out);
                return;
            case EventKind::text_delta:
                text_delta(event, data, added.index, out);
                return;
            case EventKind::signature_delta:  // the end of a thinking block's text
                if (flush({added.index}, out)) out.push_back(event);
                return;
            case EventKind::input_json_delta:
                if (blocks_[added.index].kind == BlockState::Kind::tool_use) {
                    blocks_[added.index].held.push_back(event);
                } else {
                    out.push_back(event);  // a server tool's input: no tool call of the message
                }
                return;
            case EventKind::block_stop:
                stop_block(event, added.index, out);
                return;
            case EventKind::message_delta:
                if (flush(all_blocks(), out)) out.push_back(event);
                return;
            case EventKind::message_stop:
                end_of_message(out);
                if (!ended_) out.push_back(event);
                ended_ = true;
                return;
            case EventKind::message_start:
            case EventKind::ping:
            case EventKind::other:
                out.push_back(event);
                return;
        }
    }

    void start_block(const SseEvent& event, const Json& data, std::size_t index, Events& out) {
        BlockState& block = blocks_[index];
        if (block.kind == BlockState::Kind::tool_use) {
            block.held.push_back(event);
            return;
        }
        if (block.kind == BlockState::Kind::other) {
            out.push_back(event);
            return;
        }
        block.text.emplace(holdback_);
        const std::string initial = block_text(data["content_block"], block.key());
        if (initial.empty()) {
            out.push_back(event);
            return;
        }
        block.text->add(initial);
        // Text in the start event itself is text like a delta's.
        if (!run_guard(Scope{.blocks = {index}}, out)) return;
        std::string now = block.text->release(false, final_length_);
        narrow_window(index);
        if (now == initial) {
            out.push_back(event);
            return;
        }
        Json reshaped = data;
        reshaped["content_block"][block.key()] = std::move(now);
        out.push_back(named_event("content_block_start", reshaped));
    }

    void text_delta(const SseEvent& event, const Json& data, std::size_t index, Events& out) {
        BlockState& block = blocks_[index];
        block.delta_shape = data;
        block.delta_shape_stale = false;
        const std::string& text = data["delta"][block.key()].get_ref<const std::string&>();
        if (text.empty()) {
            out.push_back(event);
            return;
        }
        block.events.drop();  // what it holds goes out in events the guard makes
        block.text->add(text);
        if (!run_guard(Scope{.blocks = {index}}, out)) return;
        std::string now = block.text->release(false, final_length_);
        narrow_window(index);
        if (now == text) {
            out.push_back(event);
        } else if (!now.empty()) {
            out.push_back(released_event(index, std::move(now)));
        }
    }

    void stop_block(const SseEvent& event, std::size_t index, Events& out) {
        BlockState& block = blocks_[index];
        if (block.kind == BlockState::Kind::tool_use) {
            block.held.push_back(event);
            close_tool_use(index, out);
            return;
        }
        if (flush({index}, out)) out.push_back(event);
    }

    // Whether a plain delta (stream_guard_plain_delta.hpp) is one the full path would take as
    // text of an open text (or thinking) block, added up here.
    bool plain_fits(const PlainTextDelta& plain) {
        if (plain.index >= blocks_.size() || !blocks_[plain.index].text) return false;
        const BlockState& block = blocks_[plain.index];
        if (block.kind != (plain.thinking ? BlockState::Kind::thinking : BlockState::Kind::text))
            return false;
        return so_far_.add_text(plain.index, block.key(), plain.text);
    }

    // A read's events: a run of plain deltas of one block is added up whole and the processors
    // run once over the run's window (not once a delta); any other event ends the run, and goes
    // its own way.
    void push_events(std::span<SseEvent> events, Events& out) override {
        std::optional<std::pair<std::size_t, bool>> run;  // its block, held whole as its first
        auto settle = [&] {
            if (run && !ended_) settle_plain_deltas(run->first, run->second, out);
            run.reset();
        };
        for (SseEvent& event : events) {
            if (ended_) break;
            line_ = event.line;
            // plain_fits adds the text to the turn: only for a delta that joins a run here.
            if (processors_ && read_plain_text_delta(event.data, plain_) &&
                (!run || run->first == plain_.index)) {
                if (plain_fits(plain_)) {
                    const bool held_whole = add_plain_delta(std::move(event));
                    if (!run) run.emplace(plain_.index, held_whole);
                    continue;
                }
            }
            settle();
            if (ended_) break;
            for (SseEvent& now : push_event(event)) out.push_back(std::move(now));
        }
        settle();
    }

    // No processor: nothing is held for them; a plain delta goes on at once when its block holds
    // nothing (true).
    bool passed_at_once(const SseEvent& event, Events& out) {
        const BlockState& block = blocks_[plain_.index];
        if (processors_ || !block.events.empty() || !block.text->held().empty()) return false;
        out.push_back(event);
        content_sent_ = true;
        return true;
    }

    // A plain delta, the common event: no Json tree is made of it. Its text joins its block; the
    // event itself is held whole (true) when the block holds only such events' text, to go out as
    // it came once all its text may go (settle_plain_deltas).
    bool add_plain_delta(SseEvent&& event) {
        BlockState& block = blocks_[plain_.index];
        wire::HeldBackText& text = *block.text;
        block.delta_shape_stale = true;
        const bool held_whole = block.events.can_hold(text);
        block.delta_shape_held = held_whole;
        if (held_whole) {
            block.events.hold(std::move(event), plain_.text.size());
        } else {  // the event ends here: its data is the shape's, taken, not copied
            block.delta_shape_data.swap(event.data);
        }
        text.add(plain_.text);
        return held_whole;
    }

    // After plain deltas of one block were added: the processors see the block's window with
    // their text. The events held whole go out as they came once all their text may go, unless a
    // processor changed the text held: then the text goes out in events the guard makes.
    void settle_plain_deltas(std::size_t index, bool held_whole, Events& out) {
        BlockState& block = blocks_[index];
        wire::HeldBackText& text = *block.text;
        if (block.delta_shape_held && !block.events.empty())  // the run's last event's shape
            block.delta_shape_data.assign(block.events.back().data);
        block.delta_shape_held = false;
        if (!run_guard(Scope{.blocks = {index}}, out)) return;
        const std::size_t before = out.size();
        if (held_whole && block.events.release_ready(text, false, final_length_, out)) {
            if (out.size() > before) content_sent_ = true;
        } else if (std::string now = text.release(false, final_length_); !now.empty()) {
            out.push_back(released_event(index, std::move(now)));
        }
        narrow_window(index);
    }

    // No processor is configured, or none changed anything: what they made of the scope's text
    // blocks is their raw text.
    void pass_unprocessed(const Scope& scope) {
        auto pass = [&](std::size_t i) {
            BlockState& block = blocks_[i];
            if (!block.text) return;
            // Without processors the whole block is not the window's: what passed on at once
            // never joined it.
            if (!scope.whole || !processors_) {
                block.text->update(block.text->window());
                return;
            }
            block.text->update_whole(block_text(so_far_.message()["content"][i], block.key()));
        };
        if (!scope.whole) {
            for (std::size_t i : scope.blocks) pass(i);
        } else {
            for (std::size_t i = 0; i < blocks_.size(); ++i) pass(i);
        }
    }

    // The text of `block` as the upstream's delta events carry it.
    SseEvent released_event(std::size_t index, std::string text) const {
        const BlockState& block = blocks_[index];
        if (block.delta_shape_stale) {
            block.delta_shape = parse_json(block.delta_shape_data, std::string(source));
            block.delta_shape_stale = false;
        }
        Json data = block.delta_shape;
        if (data.is_null()) {
            data = {{"type", "content_block_delta"},
                    {"index", index},
                    {"delta", {{"type", block.delta_type()}}}};
        }
        data["delta"][block.key()] = std::move(text);
        return named_event("content_block_delta", data);
    }

    std::vector<std::size_t> all_blocks() const {
        std::vector<std::size_t> all(blocks_.size());
        for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
        return all;
    }

    // The held text of `indices` goes out, after the processors saw the message once more (when
    // any of it holds text). False when they stopped it or rewrote sent text.
    bool flush(const std::vector<std::size_t>& indices, Events& out) {
        Scope holding;
        for (std::size_t i : indices) {
            if (blocks_[i].text && !blocks_[i].text->held().empty()) holding.blocks.push_back(i);
        }
        if (!holding.blocks.empty() && !run_guard(holding, out)) return false;
        for (std::size_t i : indices) release_rest(i, out);
        return true;
    }

    void release_rest(std::size_t index, Events& out) {
        if (!blocks_[index].text) return;
        const std::size_t before = out.size();
        blocks_[index].events.release_ready(*blocks_[index].text, /*whole=*/true, {}, out);
        if (out.size() > before) content_sent_ = true;
        std::string rest = blocks_[index].text->release(true);
        if (!rest.empty()) out.push_back(released_event(index, std::move(rest)));
    }

    bool held_back(std::size_t index) const {
        const BlockState& block = blocks_[index];
        return block.kind == BlockState::Kind::tool_use && !block.complete;
    }

    // The message without its blocks (id, model, usage, ...): copied without its text.
    Json message_head() const {
        Json head = Json::object();
        for (const auto& [key, value] : so_far_.message().items()) {
            if (key != "content") head[key] = value;
        }
        return head;
    }

    // Block `index` as the processors see it on a step: a text or thinking block with its
    // window's text (`from` bytes of the window left out), any other block as it is.
    Json windowed_block(std::size_t index, std::size_t from = 0) const {
        const BlockState& block = blocks_[index];
        const Json& whole = so_far_.message()["content"][index];
        if (!block.text) return whole;
        Json shown = Json::object();
        for (const auto& [key, value] : whole.items()) {
            if (key != block.key()) shown[key] = value;
        }
        shown[block.key()] = block.text->window().substr(from);
        seal_while_streaming(index, shown);
        return shown;
    }

    // A thinking block's signature comes last (signature_delta): until then it is sealed with a
    // stand-in, so the tier check refuses a change to its text from its first delta on.
    void seal_while_streaming(std::size_t index, Json& shown) const {
        if (blocks_[index].kind == BlockState::Kind::thinking && so_far_.open(index) &&
            block_text(shown, "signature").empty())
            shown["signature"] = cmf::Thinking::pending_signature;
    }

    // Runs the processors over `scope`: the message so far (tool_use blocks not complete left
    // out), or its window. False when they stopped it or rewrote text already sent: the stream's
    // stop ending is out (stop()), the stream ended.
    bool run_guard(const Scope& scope, Events& out) {
        if (!processors_) {
            pass_unprocessed(scope);
            return true;
        }
        view_index_.assign(blocks_.size(), not_shown);
        Json content = Json::array();
        if (scope.whole) {
            view_ = so_far_.finished_message();
            for (std::size_t i = 0; i < blocks_.size(); ++i) {
                if (held_back(i)) continue;
                view_index_[i] = content.size();
                seal_while_streaming(i, view_["content"][i]);
                content.push_back(std::move(view_["content"][i]));
            }
        } else {
            view_ = message_head();
            for (std::size_t i : scope.blocks) {
                view_index_[i] = content.size();
                content.push_back(windowed_block(i));
            }
        }
        view_["content"] = std::move(content);
        std::vector<cmf::Message> turn;
        // Built from upstream data only: what does not read (an input too deep to be shown among
        // it) is the upstream's.
        if (!read_upstream(out, [&] {
                turn = read_response(wire::WireNode("the turn so far", view_), options_);
            }))
            return false;
        GuardVerdict verdict = guard_(std::move(turn));
        if (verdict.stopped) {
            stop(out, verdict.reason);
            return false;
        }
        if (!verdict.changed) {  // the processed text is the text they saw
            for (std::size_t i : scope.blocks) {
                if (blocks_[i].kind == BlockState::Kind::tool_use) processed_ = view_;
            }
            pass_unprocessed(scope);
            return true;
        }
        processed_ = with_body_response_messages(view_, verdict.messages, options_);
        const Json& blocks = processed_["content"];
        for (std::size_t i = 0; i < blocks_.size(); ++i) {
            BlockState& block = blocks_[i];
            const std::size_t at = view_index_[i];
            if (!block.text || at == not_shown) continue;
            const bool same_kind = at < blocks.size() && kind_of(blocks[at]) == block.kind;
            const std::string text = same_kind ? block_text(blocks[at], block.key()) : "";
            if (!(scope.whole ? block.text->update_whole(text) : block.text->update(text))) {
                stop(out, wire::sent_text_changed);
                return false;
            }
        }
        return true;
    }

    // A text or thinking block whose window holds much sent text starts it later, where the
    // processors, shown the shorter window alone, make of it the tail of what they made of the
    // longer one. This extra run is what keeps a step's cost bounded; what it decides is no
    // verdict on the stream (a stop in it only keeps the window as it is).
    void narrow_window(std::size_t index) {
        BlockState& block = blocks_[index];
        const std::optional<std::size_t> cut = block.text->narrowing_cut();
        if (!cut) return;
        if (!processors_) {
            block.text->narrow(*cut, std::string_view(block.text->window()).substr(*cut));
            return;
        }
        Json view = message_head();
        view["content"] = Json::array({windowed_block(index, *cut)});
        std::vector<cmf::Message> turn;
        try {
            turn = read_response(wire::WireNode("the window", view), options_);
        } catch (const ValueError&) {
            return;
        }
        GuardVerdict verdict = guard_(std::move(turn));
        if (verdict.stopped) return;
        if (!verdict.changed) {
            block.text->narrow(*cut, std::string_view(block.text->window()).substr(*cut));
            return;
        }
        const Json processed = with_body_response_messages(view, verdict.messages, options_);
        const Json& blocks = processed["content"];
        const bool same_kind = blocks.size() == 1 && kind_of(blocks[0]) == block.kind;
        block.text->narrow(*cut, same_kind ? block_text(blocks[0], block.key()) : "");
    }

    // A tool_use block is complete: the processors see it (the blocks before it passed already).
    // Passed unchanged, its held events go out; changed, the minimal start/delta/stop carrying it
    // whole; removed, nothing.
    void close_tool_use(std::size_t index, Events& out) {
        BlockState& block = blocks_[index];
        block.complete = true;
        if (!processors_) {  // nothing can change it
            for (SseEvent& e : block.held) out.push_back(std::move(e));
            block.held.clear();
            return;
        }
        if (!run_guard(Scope{.blocks = {index}}, out)) return;
        const Json& before = view_["content"][view_index_[index]];
        const Json* after = nullptr;
        for (const Json& candidate : processed_["content"]) {
            if (kind_of(candidate) == BlockState::Kind::tool_use &&
                candidate.value("id", "") == before.value("id", "")) {
                after = &candidate;
                break;
            }
        }
        if (after && *after == before) {
            for (SseEvent& e : block.held) out.push_back(std::move(e));
        } else if (after) {
            Json start = *after;
            const Json input = start.value("input", Json::object());
            start["input"] = Json::object();
            out.push_back(named_event(
                "content_block_start",
                {{"type", "content_block_start"}, {"index", index}, {"content_block", start}}));
            out.push_back(named_event(
                "content_block_delta",
                {{"type", "content_block_delta"},
                 {"index", index},
                 {"delta",
                  {{"type", "input_json_delta"},
                   {"partial_json",
                    input.is_string()
                        ? input.get<std::string>()
                        : input.dump(-1, ' ', false, Json::error_handler_t::replace)}}}}));
            out.push_back(named_event("content_block_stop",
                                      {{"type", "content_block_stop"}, {"index", index}}));
        }
        block.held.clear();
    }

    // The message is over (message_stop, or the upstream's body ended whole): tool_use blocks
    // still open complete, the processors see the whole message once more, all held goes out.
    void end_of_message(Events& out) {
        for (std::size_t i = 0; i < blocks_.size(); ++i) {
            if (held_back(i)) {
                close_tool_use(i, out);
                if (ended_) return;
            }
        }
        if (so_far_.message().is_null()) return;  // no message_start: nothing to guard
        if (!run_guard(Scope{.whole = true}, out)) return;
        for (std::size_t i = 0; i < blocks_.size(); ++i) release_rest(i, out);
    }

    StreamGuard guard_;
    std::size_t holdback_;
    FinalLength final_length_;  // empty: the holdback alone decides what is held
    bool processors_;           // false: none configured, no run can change anything
    PlainTextDelta plain_;      // the plain delta in hand (its buffers reused)
    Json options_;
    MessageSoFar so_far_;
    std::vector<BlockState> blocks_;  // per content block, by index
    std::set<std::size_t> open_out_;  // the blocks the client has open
    // The message the processors last saw (tool_use blocks not complete left out), where each
    // block is in it, and what the processors made of it.
    Json view_, processed_;
    std::vector<std::size_t> view_index_;
};

}  // namespace

std::unique_ptr<GuardedStream> guard_messages_stream(StreamGuard guard,
                                                     const StreamGuardOptions& stream_options,
                                                     Json options) {
    return std::make_unique<MessagesStreamGuard>(std::move(guard), stream_options,
                                                 std::move(options));
}

}  // namespace cmfpipe::anthropic
