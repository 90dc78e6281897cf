// A streamed Chat Completion guarded event by event (cmfpipe/stream_guard.hpp), for a proxy that
// passes an upstream's chunks on to its client:
//   - every chunk is added up by ChatCompletionSoFar (chat_stream.cpp). On a step the processors
//     see a window of the turn, whatever its length: the choices the chunk touched, each text
//     part as wire::HeldBackText's window (the text not sent yet and some sent text before it),
//     and the one tool call that just completed; at the end of the turn they see it whole. The
//     window is read with read_chat_completion and what the processors made of it is mapped back
//     with with_chat_response_messages, so the text each part may release is the processed one;
//   - text members of a delta (content, reasoning_content / reasoning, refusal) go out held back
//     by wire::HeldBackText, in an event shaped like the upstream's; the common event, a plain
//     text delta (chat_plain_delta.hpp), is read with no Json tree and held whole
//     (wire::HeldEvents): it goes out as the upstream's bytes unless a processor changed its text;
//   - tool-call fragments are held per call until the call is complete (a fragment of another
//     index, the choice's finish_reason, or the end of the stream), then guarded with the turn
//     (arguments that are not a JSON object shown as the text part a request's are,
//     wire/request_fields.hpp: what the processors make of it is the arguments that go out);
//   - everything else (role, usage, finish chunks) passes as it came, after what it follows.
// A processor's stop (or a rewrite of text already sent) ends the turn as OpenAI's own filter
// does: finish_reason "content_filter" for each open choice, then [DONE] (or, with
// StreamStop::error_event, the error event "Stopped").
#include <map>
#include <set>

#include "chat_logprobs.hpp"
#include "chat_plain_delta.hpp"
#include "chat_stream_guard_chunks.hpp"
#include "chat_stream_guard_logprobs.hpp"
#include "chat_stream_guard_state.hpp"
#include "chat_window_messages.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/json_parse.hpp"
#include "cmfpipe/wire/guarded_stream_base.hpp"
#include "cmfpipe/wire/held_events.hpp"
#include "cmfpipe/wire/held_text.hpp"
#include "cmfpipe/wire/request_fields.hpp"
#include "cmfpipe/wire/structured_output.hpp"
#include "openai_wire.hpp"

namespace cmfpipe::openai {
namespace {

using namespace chat_guard;

class ChatStreamGuard final : public wire::GuardedStreamBase {
  public:
    ChatStreamGuard(StreamGuard guard, StreamGuardOptions stream_options, Json options)
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
        if (read_plain_text_delta(event.data, plain_) && head_known(plain_)) {
            if (!passed_at_once(event, plain_, out)) {
                const bool held_whole = add_plain_delta(SseEvent(event), plain_);
                settle_plain_deltas(plain_.index, plain_.field, held_whole, out);
            }
            return out;
        }
        if (trim(event.data) == "[DONE]") {
            end_of_turn(out);
            if (!ended_) out.push_back(event);
            ended_ = true;
            return out;
        }
        // The head, or the choice's shape, may change: the views are made anew.
        view_key_.reset();
        window_message_.reset();
        narrowed_key_.reset();
        narrowed_message_.reset();
        std::optional<Json> chunk = parse_object(event, out);
        if (!chunk) return out;
        if (!null_or_absent(*chunk, "error")) {  // the provider's own error: it ends the stream
            out.push_back(event);
            ended_ = true;
            return out;
        }
        std::vector<ChoiceDelta> deltas;
        try {
            const wire::WireNode node("", *chunk);
            node.at("choices");  // every chunk has them (a usage chunk an empty list)
            deltas = so_far_.add(node);
            refuse_unguarded(node, deltas);
        } catch (const ValueError& e) {
            broken(out, e.message());
            return out;
        }
        take_chunk(event, *chunk, deltas, out);
        return out;
    }

    void end_of_stream(Events& out) override { end_of_turn(out); }
    void release_held(Events& out) override {
        for (auto& [index, state] : choices_) {
            for (TextPart& part : state.texts) release_rest(state, part, out);
        }
    }

    SseEvent error_event(std::string_view type, std::string_view code,
                         std::string_view message) const override {
        return data_event({{"error",
                            {{"message", std::string(message)},
                             {"type", std::string(type)},
                             {"code", std::string(code)}}}});
    }

  private:
    // What view_ is a window of, when it is one choice's text that refresh_view may set again.
    struct ViewKey {
        std::int64_t index;
        bool content, reasoning, refusal;
        bool operator==(const ViewKey&) const = default;
    };

    // Until part of the answer went out: whether one of `out` carries some (text, reasoning, a
    // refusal, a tool call). Role chunks, empty text and usage are no part of it.
    void released(Events& out) override {
        for (const SseEvent& event : out) {
            if (content_sent_) return;
            content_sent_ = carries_answer(event);
        }
    }

    // The provider's own safety-filter ending: each choice whose finish_reason has not gone out
    // finishes with "content_filter" (an empty delta), then [DONE]. Held text and calls are
    // dropped: they are what was stopped.
    Events filter_ending(std::string_view /*reason*/) override {
        Events out;
        for (const auto& [index, state] : choices_) {
            if (finished_out_.count(index) == 0) out.push_back(filter_chunk(index, &state));
        }
        if (choices_.empty()) out.push_back(filter_chunk(0, nullptr));
        out.push_back(SseEvent{"", "[DONE]"});
        return out;
    }

    // Choice `index`'s last chunk, shaped as the upstream's (or from the turn's head when none
    // went by), with an empty delta and finish_reason "content_filter".
    SseEvent filter_chunk(std::int64_t index, const ChoiceState* state) const {
        ChunkShape shape;
        if (state && !shape_of(*state).chunk.is_null()) {
            shape = shape_of(*state);
        } else if (state && !state->calls.empty()) {
            shape = state->calls.begin()->second.shape;
        } else {
            shape.chunk = so_far_.head();
            shape.chunk.erase("usage");
            shape.chunk["object"] = "chat.completion.chunk";
            shape.chunk["choices"] = Json::array();
            shape.choice = {{"index", index}, {"delta", Json::object()}};
        }
        Json chunk = std::move(shape.chunk);
        Json choice = std::move(shape.choice);
        choice["delta"] = Json::object();
        if (choice.contains("logprobs")) choice["logprobs"] = nullptr;
        choice["finish_reason"] = "content_filter";
        chunk["choices"] = Json::array({std::move(choice)});
        return data_event(chunk);
    }

    // A legacy function_call delta names a function no processor would see: refused, not passed.
    static void refuse_unguarded(const wire::WireNode& chunk,
                                 const std::vector<ChoiceDelta>& deltas) {
        for (const ChoiceDelta& d : deltas) {
            const wire::WireNode delta = chunk.at("choices").elements()[d.position];
            if (auto inner = delta.find("delta"); inner && inner->find("function_call"))
                inner->at("function_call")
                    .fail("a legacy function_call is not guarded (tool_calls are)");
        }
    }

    void take_chunk(const SseEvent& event, const Json& chunk,
                    const std::vector<ChoiceDelta>& deltas, Events& out) {
        Scope text_scope;  // the choices with new text, or held text their finish releases
        for (const ChoiceDelta& d : deltas) {
            ChoiceState& state = choices_[d.index];
            const Json& choice = chunk["choices"][d.position];
            for (const auto& [field, key] : d.texts) {
                if (choice["delta"][key].get_ref<const std::string&>().empty()) continue;
                TextPart* part = state.text(field);
                if (part) {
                    part->key = key;
                } else {  // a part starts with its first text (not with a role chunk's "")
                    part = &state.texts.emplace_back(TextPart{
                        field, key, wire::HeldBackText(holdback_, field != ChatText::reasoning)});
                }
                part->events.drop();  // what it holds goes out in events the guard makes
                const std::size_t begin = part->text.raw_size();
                part->text.add(choice["delta"][key].get_ref<const std::string&>());
                if (field != ChatText::reasoning && has_logprobs(choice))
                    part->logprobs.add(choice["logprobs"].value(logprobs_key(field), Json()), begin,
                                       part->text.raw_size());
                text_scope.choices.insert(d.index);
            }
            if (!d.texts.empty()) {
                state.text_shape = ChunkShape(chunk, choice);
                state.text_shape_stale = false;
            }
            if (has_logprobs(choice)) state.logprobs_shape = choice["logprobs"];
        }

        // Tool-call fragments are held; one of another index completes the call before it.
        const std::optional<std::pair<std::int64_t, std::int64_t>> whole =
            held_whole(chunk, deltas);
        for (const ChoiceDelta& d : deltas) {
            ChoiceState& state = choices_[d.index];
            const Json& choice = chunk["choices"][d.position];
            for (std::size_t j = 0; j < d.calls.size(); ++j) {
                const std::int64_t k = d.calls[j];
                if (state.open_call && *state.open_call != k && !close_call(d.index, out)) return;
                state.open_call = k;
                auto [call, fresh] = state.calls.try_emplace(k);
                if (call->second.complete) {
                    broken(out, "$.choices[" + std::to_string(d.position) +
                                    "].delta.tool_calls: a fragment of tool call " +
                                    std::to_string(k) + " after the call was complete");
                    return;
                }
                if (fresh) call->second.shape = ChunkShape(chunk, choice);
                if (!whole) {
                    call->second.events.push_back(
                        ChunkShape(chunk, choice)
                            .with(
                                {{"tool_calls", Json::array({choice["delta"]["tool_calls"][j]})}}));
                }
            }
        }
        if (whole) choices_[whole->first].calls[whole->second].events.push_back(event);

        // Text: the processors see the turn with it; a finished choice releases all it holds.
        for (const ChoiceDelta& d : deltas) {
            if (!d.finished) continue;
            for (const TextPart& part : choices_[d.index].texts)
                if (!part.text.held().empty()) text_scope.choices.insert(d.index);
        }
        if (!text_scope.choices.empty() && !run_guard(text_scope, out)) return;
        Json reshaped = chunk;
        bool changed = false;
        for (const ChoiceDelta& d : deltas) {
            ChoiceState& state = choices_[d.index];
            Json& choice = reshaped["choices"][d.position];
            if (!d.calls.empty()) {
                choice["delta"].erase("tool_calls");
                changed = true;
            }
            std::map<ChatText, bool> released;
            for (const auto& [field, key] : d.texts) {
                Json& member = choice["delta"][key];
                std::string text;
                TextPart* part = state.text(field);
                if (part && !released[field]) text = part->text.release(d.finished, final_length_);
                released[field] = true;
                if (member == text) continue;
                changed = true;
                if (text.empty()) {
                    choice["delta"].erase(key);
                } else {
                    member = std::move(text);
                }
            }
            Json logprobs = released_logprobs(state, &chunk["choices"][d.position], &d);
            if (!(logprobs.is_null() && null_or_absent(choice, "logprobs")) &&
                choice.value("logprobs", Json()) != logprobs) {
                choice["logprobs"] = std::move(logprobs);
                changed = true;
            }
            if (!d.finished) continue;
            for (TextPart& part : state.texts) {
                if (!released[part.field]) release_rest(state, part, out);
            }
            if (state.open_call && !close_call(d.index, out)) return;
        }
        for (const ChoiceDelta& d : deltas) {
            if (d.finished) finished_out_.insert(d.index);  // its finish_reason goes out below
        }
        for (std::int64_t index : text_scope.choices) narrow_windows(index);
        if (whole) return;
        if (!changed) {
            out.push_back(event);
            return;
        }
        Json kept = Json::array();
        for (Json& choice : reshaped["choices"]) {
            if (!empty_choice(choice)) kept.push_back(std::move(choice));
        }
        if (kept.empty() && null_or_absent(reshaped, "usage")) return;
        reshaped["choices"] = std::move(kept);
        out.push_back(data_event(reshaped));
    }

    // Whether the head members a plain delta carries are known already (the first of each is
    // recorded, by the full path).
    bool head_known(const PlainTextDelta& plain) const {
        // The head only gains members (the first of each is kept): one found stays found.
        auto known = [&](bool carried, unsigned bit, const char* key) {
            if (!carried || (head_seen_ & bit)) return true;
            if (!so_far_.head().contains(key)) return false;
            head_seen_ |= bit;
            return true;
        };
        return known(plain.has_id, 1, "id") && known(plain.has_model, 2, "model") &&
               known(plain.has_created, 4, "created") &&
               known(plain.has_fingerprint, 8, "system_fingerprint");
    }

    // A read's events: a run of plain text deltas of one part is added up whole and the processors
    // run once over the run's window (not once a delta); any other event ends the run, and goes
    // its own way.
    void push_events(std::span<SseEvent> events, Events& out) override {
        struct Run {
            std::int64_t index;
            ChatText field;
            bool held_whole;  // as its first delta was (the rest follow it: HeldEvents::can_hold)
        };
        std::optional<Run> run;
        auto settle = [&] {
            if (run && !ended_) settle_plain_deltas(run->index, run->field, run->held_whole, out);
            run.reset();
        };
        for (SseEvent& event : events) {
            if (ended_) break;
            line_ = event.line;
            if (processors_ && read_plain_text_delta(event.data, plain_) && head_known(plain_)) {
                if (run && (run->index != plain_.index || run->field != plain_.field)) settle();
                if (ended_) break;
                line_ = event.line;
                const bool held_whole = add_plain_delta(std::move(event), plain_);
                if (!run) run = Run{plain_.index, plain_.field, held_whole};
                continue;
            }
            settle();
            if (ended_) break;
            for (SseEvent& now : push_event(event)) out.push_back(std::move(now));
        }
        settle();
    }

    // No processor: nothing is held for them (nor added up: nothing reads the turn). A plain
    // delta goes on at once, as it came, when its part holds nothing (true).
    bool passed_at_once(const SseEvent& event, const PlainTextDelta& plain, Events& out) {
        if (processors_) return false;
        const auto state = choices_.find(plain.index);
        const TextPart* part = state == choices_.end() ? nullptr : state->second.text(plain.field);
        if (part && (!part->events.empty() || !part->text.held().empty())) return false;
        out.push_back(event);
        content_sent_ = true;
        return true;
    }

    // A plain text delta (chat_plain_delta.hpp), the common event: no Json tree is made of it.
    // Its text joins its part; the event itself is held whole (true) when the part holds only
    // such events' text, to go out as it came once all its text may go (settle_plain_deltas).
    bool add_plain_delta(SseEvent&& event, const PlainTextDelta& plain) {
        ChoiceState& state = choices_[plain.index];
        TextPart* part = state.text(plain.field);
        so_far_.add_text(plain.index, plain.field, plain.text);
        state.text_shape_stale = true;
        if (part) {
            if (part->key != plain.key) part->key = plain.key;
        } else {
            part = &state.texts.emplace_back(
                TextPart{plain.field, plain.key,
                         wire::HeldBackText(holdback_, plain.field != ChatText::reasoning)});
        }
        const bool held_whole = part->events.can_hold(part->text);
        if (held_whole) {
            part->events.hold(std::move(event), plain.text.size());
            state.text_shape_held = plain.field;
        } else {  // the event ends here: its data is the shape's, taken, not copied
            state.text_shape_data.swap(event.data);
            state.text_shape_held.reset();
        }
        part->text.add(plain.text);
        return held_whole;
    }

    // The shape's data of a run of held deltas: its last event's, before any of them goes out.
    static void settle_text_shape(ChoiceState& state) {
        if (!state.text_shape_held) return;
        const TextPart* part = state.text(*state.text_shape_held);
        state.text_shape_held.reset();
        if (part && !part->events.empty()) state.text_shape_data.assign(part->events.back().data);
    }

    // After plain deltas of one part were added: the processors see the choice's window with
    // their text. The events held whole go out as they came once all their text may go (the text
    // after them is past the holdback, or the processors say it is final, or the part ends).
    // When a processor changed the text held, or the part holds text that came otherwise, the
    // text goes out as the full path sends it.
    void settle_plain_deltas(std::int64_t index, ChatText field, bool held_whole, Events& out) {
        ChoiceState& state = choices_.at(index);
        settle_text_shape(state);
        TextPart* part = state.text(field);
        Scope scope;
        scope.choices.insert(index);
        if (!run_guard(scope, out)) return;
        const std::size_t before = out.size();
        if (held_whole && part->events.release_ready(part->text, false, final_length_, out)) {
            if (out.size() > before) content_sent_ = true;
        } else {
            std::string text = part->text.release(false, final_length_);
            Json logprobs = released_logprobs(state);
            if (!text.empty() || !logprobs.is_null()) {
                Json delta = Json::object();
                if (!text.empty()) delta[part->key] = std::move(text);
                out.push_back(shape_of(state).with(std::move(delta), std::move(logprobs)));
            }
        }
        narrow_windows(index);
    }

    // No processor is configured, or none changed anything: what they made of the scope is its
    // raw text.
    void pass_unprocessed(const Scope& scope) {
        for (auto& [index, state] : choices_) {
            if (!scope.whole && scope.choices.count(index) == 0) continue;
            for (TextPart& part : state.texts) {
                // Without processors the whole part is not the window's: what passed on at once
                // never joined it (nor the turn added up).
                if (!scope.whole || !processors_) {
                    part.text.update(part.text.window());
                    continue;
                }
                const ChoiceSoFar& so_far = so_far_.choices().at(index);
                const std::string& whole = part.field == ChatText::content     ? so_far.content
                                           : part.field == ChatText::reasoning ? so_far.reasoning
                                                                               : so_far.refusal;
                part.text.update_whole(whole);
            }
        }
    }

    // The choice's last text chunk's shape, made from a plain delta's data when that is newer.
    static const ChunkShape& shape_of(const ChoiceState& state) {
        if (state.text_shape_stale) {
            const Json chunk = parse_json(state.text_shape_data, std::string(source));
            state.text_shape = ChunkShape(chunk, chunk["choices"][0]);
            state.text_shape_stale = false;
        }
        return state.text_shape;
    }

    // What the part still holds goes out (the end of the choice or of the stream), with the
    // logprob entries of its tokens.
    void release_rest(ChoiceState& state, TextPart& part, Events& out) {
        const std::size_t before = out.size();
        part.events.release_ready(part.text, /*whole=*/true, {}, out);
        if (out.size() > before) content_sent_ = true;
        std::string rest = part.text.release(true);
        Json logprobs = released_logprobs(state);
        if (rest.empty() && logprobs.is_null()) return;
        Json delta = Json::object();
        if (!rest.empty()) delta[part.key] = std::move(rest);
        out.push_back(shape_of(state).with(std::move(delta), std::move(logprobs)));
    }

    // The body the processors see for `scope`: the turn so far (calls not complete left out), or
    // its window (the scope's choices with their text parts' windows, and the scope's call).
    Json view_of(const Scope& scope) const {
        if (scope.whole) {
            return so_far_.body([this](std::int64_t choice, std::int64_t call) {
                auto state = choices_.find(choice);
                if (state == choices_.end()) return false;
                auto held = state->second.calls.find(call);
                return held != state->second.calls.end() && held->second.complete;
            });
        }
        Json body = so_far_.head();
        body["choices"] = Json::array();
        for (std::int64_t index : scope.choices) {
            const ChoiceSoFar& so_far = so_far_.choices().at(index);
            const ChoiceState& state = choices_.at(index);
            auto window = [&](ChatText field) {
                for (const TextPart& part : state.texts) {
                    if (part.field == field) return Json(part.text.window());
                }
                return Json("");
            };
            Json message = {{"role", "assistant"},
                            {"content", so_far.has_content ? window(ChatText::content) : Json()}};
            if (so_far.has_reasoning) message["reasoning_content"] = window(ChatText::reasoning);
            if (so_far.has_refusal) message["refusal"] = window(ChatText::refusal);
            if (scope.call && scope.call->first == index) {
                const ToolCallSoFar& tc = so_far.tool_calls.at(scope.call->second);
                Json function = {{"name", tc.name}};
                if (tc.has_arguments) function["arguments"] = tc.arguments;
                message["tool_calls"] = Json::array(
                    {Json{{"id", tc.id}, {"type", "function"}, {"function", std::move(function)}}});
            }
            body["choices"].push_back(Json{{"index", index},
                                           {"message", std::move(message)},
                                           {"finish_reason", so_far.finish_reason}});
        }
        return body;
    }

    // view_ = view_of(scope). A window of one choice's text, as on every text delta, is kept
    // between steps and only its texts are set again (the head and the choice's shape are the
    // same until an event that is no plain delta comes, or the scope changes).
    void refresh_view(const Scope& scope) {
        const bool one_text = !scope.whole && !scope.call && scope.choices.size() == 1;
        if (one_text) {
            const std::int64_t index = *scope.choices.begin();
            const ChoiceSoFar& so_far = so_far_.choices().at(index);
            const ViewKey key{index, so_far.has_content, so_far.has_reasoning, so_far.has_refusal};
            if (view_key_ == key && so_far.finish_reason.is_null()) {
                Json& message = view_["choices"][0]["message"];
                const ChoiceState& state = choices_.at(index);
                auto set = [&](const char* member, ChatText field) {
                    std::string& text = message[member].get_ref<std::string&>();
                    text.clear();
                    for (const TextPart& part : state.texts) {
                        if (part.field == field) text.assign(part.text.window());
                    }
                };
                if (key.content) set("content", ChatText::content);
                if (key.reasoning) set("reasoning_content", ChatText::reasoning);
                if (key.refusal) set("refusal", ChatText::refusal);
                view_texts_stale_ = false;
                return;
            }
            view_ = view_of(scope);
            view_key_ = so_far.finish_reason.is_null() ? std::optional<ViewKey>(key) : std::nullopt;
            window_message_.reset();
            view_texts_stale_ = false;
            return;
        }
        view_ = view_of(scope);
        view_key_.reset();
        window_message_.reset();
        view_texts_stale_ = false;
    }

    std::optional<cmf::Content> window_parts(const ViewKey& key) const {
        return chat_guard::window_parts(choices_.at(key.index), key.content, key.reasoning,
                                        key.refusal);
    }

    // The window's turn made straight from its texts (no view, no read): while the view's key
    // holds (one choice's text, the same head and shape: refresh_view's fast path), its message
    // is the one read_chat_completion made of the view last, with the windows' parts in it. The
    // view's texts are then stale (set again only when a processor changed something).
    bool window_turn(const Scope& scope, std::vector<cmf::Message>& turn) {
        if (!window_message_ || scope.whole || scope.call || scope.choices.size() != 1 ||
            !view_key_ || view_key_->index != *scope.choices.begin() ||
            !so_far_.choices().at(view_key_->index).finish_reason.is_null())
            return false;
        const ChoiceSoFar& so_far = so_far_.choices().at(view_key_->index);
        if (view_key_->content != so_far.has_content ||
            view_key_->reasoning != so_far.has_reasoning ||
            view_key_->refusal != so_far.has_refusal)
            return false;
        std::optional<cmf::Content> parts = window_parts(*view_key_);
        if (!parts) return false;
        turn.clear();
        turn.push_back(window_message_->with_content(std::move(*parts)));
        view_texts_stale_ = true;
        return true;
    }

    // After read_chat_completion read the view of a window whose key may hold: its message is
    // kept for window_turn when it is what window_turn would make of it (its parts the windows'
    // and nothing in it that depends on the text: no structured output read from it).
    void keep_window_message(const std::vector<cmf::Message>& turn) {
        window_message_.reset();
        view_texts_stale_ = false;
        if (!view_key_ || turn.size() != 1 || wire::wants_structured_output(options_)) return;
        if (same_parts(window_parts(*view_key_), turn[0])) window_message_ = turn[0];
    }

    // Runs the processors over `scope`. False when they stopped it or rewrote text already sent:
    // the stream's stop ending is out (stop()) and the stream ended.
    bool run_guard(const Scope& scope, Events& out) {
        if (!processors_) {
            pass_unprocessed(scope);
            return true;
        }
        std::vector<cmf::Message> turn;
        if (!window_turn(scope, turn)) {
            refresh_view(scope);
            if (view_["choices"].empty()) return true;
            // Built from upstream data only: what does not read (arguments too deep to be shown
            // among it) is the upstream's.
            if (!read_upstream(out, [&] {
                    turn = read_chat_completion(wire::WireNode("the turn so far", view_), options_);
                }))
                return false;
            keep_window_message(turn);
        }
        GuardVerdict verdict = guard_(std::move(turn));
        if (verdict.stopped) {
            stop(out, verdict.reason);
            return false;
        }
        if (!verdict.changed) {  // the processed text is the text they saw
            if (scope.call) processed_ = view_;
            pass_unprocessed(scope);
            return true;
        }
        if (view_texts_stale_) refresh_view(scope);  // the windows' texts, to map back onto
        processed_ = with_chat_response_messages(view_, verdict.messages, options_);
        for (const Json& choice : processed_["choices"]) {
            auto state = choices_.find(choice["index"].get<std::int64_t>());
            if (state == choices_.end()) continue;
            for (TextPart& part : state->second.texts) {
                const std::string text = message_text(choice["message"], part.field);
                if (!(scope.whole ? part.text.update_whole(text) : part.text.update(text))) {
                    stop(out, wire::sent_text_changed);
                    return false;
                }
            }
        }
        return true;
    }

    // Each text part of the choice whose window holds much sent text starts it later, where the
    // processors, shown the shorter window alone, make of it the tail of what they made of the
    // longer one. This extra run is what keeps a step's cost bounded; what it decides is no
    // verdict on the stream (a stop in it only keeps the window as it is).
    void narrow_windows(std::int64_t index) {
        for (TextPart& part : choices_.at(index).texts) {
            const std::optional<std::size_t> cut = part.text.narrowing_cut();
            if (!cut) continue;
            if (!processors_) {
                part.text.narrow(*cut, std::string_view(part.text.window()).substr(*cut));
                continue;
            }
            const std::string_view tail = std::string_view(part.text.window()).substr(*cut);
            std::vector<cmf::Message> turn;
            if (std::optional<cmf::Message> made = narrowed_message(index, part.field, tail)) {
                turn.push_back(std::move(*made));  // made from the one read before
            } else {
                try {
                    turn = read_chat_completion(
                        wire::WireNode("the window", narrowed_view(index, part.field, *cut)),
                        options_);
                } catch (const ValueError&) {
                    continue;
                }
                keep_narrowed_message(part.field, tail, turn);
            }
            GuardVerdict verdict = guard_(std::move(turn));
            if (verdict.stopped) continue;
            if (!verdict.changed) {
                part.text.narrow(*cut, tail);
                continue;
            }
            const Json processed = with_chat_response_messages(
                narrowed_view(index, part.field, *cut), verdict.messages, options_);
            std::string processed_tail;
            for (const Json& choice : processed["choices"])
                processed_tail = message_text(choice["message"], part.field);
            part.text.narrow(*cut, processed_tail);
        }
    }

    // The narrowed window's message made straight from `tail`, as window_turn makes the
    // window's: the one read_chat_completion made of the narrowed view of this (choice, part)
    // last, with the tail's parts. nullopt when there is none to make it from.
    std::optional<cmf::Message> narrowed_message(std::int64_t index, ChatText field,
                                                 std::string_view tail) const {
        if (!narrowed_message_ || narrowed_key_ != std::make_pair(index, field))
            return std::nullopt;
        std::optional<cmf::Content> parts = narrowed_parts(field, tail);
        if (!parts) return std::nullopt;
        return narrowed_message_->with_content(std::move(*parts));
    }

    // After read_chat_completion read the narrowed view holding `tail`: its message kept for
    // narrowed_message when it is what that would make of it (keep_window_message's check).
    void keep_narrowed_message(ChatText field, std::string_view tail,
                               const std::vector<cmf::Message>& turn) {
        narrowed_message_.reset();
        if (turn.size() != 1 || wire::wants_structured_output(options_)) return;
        if (same_parts(narrowed_parts(field, tail), turn[0])) narrowed_message_ = turn[0];
    }

    // The body the processors see for a narrowed window of one text part: the turn's head and
    // the part's window from `cut`. Kept between steps (as view_), only its text set again.
    const Json& narrowed_view(std::int64_t index, ChatText field, std::size_t cut) {
        const TextPart& part = *choices_.at(index).text(field);
        const std::string_view tail = std::string_view(part.text.window()).substr(cut);
        if (narrowed_key_ != std::make_pair(index, field)) {
            narrowed_message_.reset();
            Json message = {{"role", "assistant"}, {"content", nullptr}};
            message[body_key(field)] = "";
            narrowed_view_ = so_far_.head();
            narrowed_view_["choices"] = Json::array({Json{
                {"index", index}, {"message", std::move(message)}, {"finish_reason", nullptr}}});
            narrowed_key_ = std::make_pair(index, field);
        }
        narrowed_view_["choices"][0]["message"][body_key(field)].get_ref<std::string&>().assign(
            tail);
        return narrowed_view_;
    }

    // The choice's open call is complete: the processors see the choice's window with it (the
    // calls before it passed already). Passed unchanged, its held events go out; changed, one
    // event carrying it whole; removed, nothing.
    bool close_call(std::int64_t index, Events& out) {
        ChoiceState& state = choices_.at(index);
        const std::int64_t k = *state.open_call;
        state.open_call.reset();
        HeldCall& call = state.calls.at(k);
        call.complete = true;
        Scope scope;
        scope.choices.insert(index);
        scope.call = std::make_pair(index, k);
        if (!processors_) {  // nothing can change it
            for (SseEvent& e : call.events) out.push_back(std::move(e));
            call.events.clear();
            return true;
        }
        if (!run_guard(scope, out)) return false;
        const Json* before = call_in(view_, index, 0, nullptr);  // the window's one call
        const Json* after = call_in(processed_, index, 0, before);
        if (before && after && *before == *after) {
            for (SseEvent& e : call.events) out.push_back(std::move(e));
        } else if (after) {
            Json whole = {{"index", k}};
            for (const auto& [key, value] : after->items()) whole[key] = value;
            out.push_back(call.shape.with({{"tool_calls", Json::array({std::move(whole)})}}));
        }
        call.events.clear();
        return true;
    }

    // The turn is over ([DONE], or the upstream's body ended whole): calls still open complete,
    // the processors see the whole turn once more, and all that is held goes out.
    void end_of_turn(Events& out) {
        for (auto& [index, state] : choices_) {
            if (state.open_call && !close_call(index, out)) return;
        }
        if (!run_guard(Scope{.whole = true}, out)) return;
        for (auto& [index, state] : choices_) {
            for (TextPart& part : state.texts) release_rest(state, part, out);
        }
    }

    StreamGuard guard_;
    std::size_t holdback_;
    FinalLength final_length_;  // empty: the holdback alone decides what is held
    bool processors_;           // false: none configured, no run can change anything
    Json options_;
    ChatCompletionSoFar so_far_{/*refusals_fail=*/false};
    std::map<std::int64_t, ChoiceState> choices_;
    std::set<std::int64_t> finished_out_;  // the choices whose finish_reason went out
    Json view_, processed_;  // the turn the processors last saw, and what they made of it
    std::optional<ViewKey> view_key_;
    // What read_chat_completion made of view_ while view_key_ holds (window_turn), and whether
    // view_'s texts are behind the windows' (window_turn did not set them).
    std::optional<cmf::Message> window_message_;
    bool view_texts_stale_ = false;
    Json narrowed_view_;  // narrowed_view's body, of this (choice, part) while the head holds
    std::optional<std::pair<std::int64_t, ChatText>> narrowed_key_;
    std::optional<cmf::Message> narrowed_message_;  // read from narrowed_view_ (narrowed_message)
    PlainTextDelta plain_;            // the plain delta in hand (its text's buffer reused)
    mutable unsigned head_seen_ = 0;  // the head members head_known found (bits)
};

}  // namespace

std::unique_ptr<GuardedStream> guard_chat_stream(StreamGuard guard,
                                                 const StreamGuardOptions& stream_options,
                                                 Json options) {
    return std::make_unique<ChatStreamGuard>(std::move(guard), stream_options, std::move(options));
}

}  // namespace cmfpipe::openai
