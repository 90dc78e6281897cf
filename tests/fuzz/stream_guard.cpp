// Fuzz target: a provider's stream as `cmfpipe serve` guards it on its way to the client. The
// first byte picks the adapter (bit 0: openai, anthropic), the holdback (bit 1: 0 or 8
// characters), the size of the pieces the bytes arrive in (bits 2-5: 1 to 16 bytes), whether the
// pipeline's word on which text is final is used as serve uses it (bit 6: StreamGuardOptions::
// final_length from Pipeline::final_length) and how a stop ends the stream (bit 7:
// `--stream-stop error-event`, else content_filter); the rest is the upstream's body. An openai
// body that names a Responses event type ("type":"response.) is guarded as a streamed Responses
// answer, as the proxy's /v1/responses route does; any other as Chat Completions. It goes through
// wire::SseReader and GuardedStream::push/finish with the guarded_tools pipeline (pii_redactor,
// data_policy, tool_guard) as the guard, as the proxy runs them.
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "cmfpipe/adapter.hpp"
#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/core/pipeline/config.hpp"
#include "cmfpipe/core/pipeline/pipeline.hpp"
#include "cmfpipe/stream_guard.hpp"
#include "cmfpipe/wire/sse.hpp"
#include "fuzz_input.hpp"

namespace {

using namespace cmfpipe;

const pipeline::Pipeline& guard_pipeline() {
    static const pipeline::Pipeline built = pipeline::Pipeline::build(
        pipeline::load_pipeline_config(std::filesystem::path(CMFPIPE_SOURCE_DIR) /
                                       "config/guarded_tools.yaml"),
        fuzz::plugins());
    return built;
}

GuardVerdict guard(std::vector<cmf::Message> messages) {
    pipeline::PipelineResult result = guard_pipeline().run("llm_output", std::move(messages));
    GuardVerdict verdict;
    verdict.messages = std::move(result.messages);
    verdict.stopped = result.stopped;
    if (result.stopped) verdict.reason = pipeline::stop_message(result.decisions, "answer");
    return verdict;
}

// What the client gets is the provider's SSE: every event's data JSON (or Chat Completions'
// "[DONE]"), nothing after the stream has ended, and in a Responses stream (`next_number` set)
// sequence numbers that follow one another, whatever was held or dropped.
void check(const std::vector<wire::SseEvent>& out, bool ended_before,
           std::optional<std::int64_t>* next_number) {
    if (ended_before && !out.empty()) __builtin_trap();
    for (const auto& event : out) {
        if (event.data == "[DONE]") continue;
        const Json data = Json::parse(event.data, nullptr, /*allow_exceptions=*/false);
        if (data.is_discarded()) __builtin_trap();
        if (!next_number || !data.is_object()) continue;
        const auto number = data.find("sequence_number");
        if (number == data.end()) continue;
        if (!number->is_number_integer()) __builtin_trap();
        if (*next_number && number->get<std::int64_t>() != **next_number) __builtin_trap();
        *next_number = number->get<std::int64_t>() + 1;
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return -1;
    static const std::shared_ptr<Adapter> openai = fuzz::plugins().make_adapter("openai");
    static const std::shared_ptr<Adapter> anthropic = fuzz::plugins().make_adapter("anthropic");
    const std::uint8_t choice = data[0];
    const bool is_openai = (choice & 1) == 0;
    const std::size_t piece = 1 + ((choice >> 2) & 15);  // 1 to 16 bytes a read
    StreamGuardOptions options{(choice & 2) ? 8u : 0u};
    if (choice & 64) {
        options.final_length = [](std::string_view text) {
            return guard_pipeline().final_length("llm_output", text);
        };
    }
    if (choice & 128) options.stop = StreamStop::error_event;
    const Json body =
        is_openai
            ? Json{{"model", "m"}, {"stream", true}, {"messages", Json::array()}}
            : Json{
                  {"model", "m"}, {"max_tokens", 8}, {"stream", true}, {"messages", Json::array()}};
    return fuzz::run(data + 1, size - 1, fuzz::Admit::model_output, [&](std::string_view text) {
        const bool responses =
            is_openai && text.find("\"type\":\"response.") != std::string_view::npos;
        const Json responses_body = {{"model", "m"}, {"stream", true}, {"input", "hi"}};
        const auto guarded =
            (is_openai ? openai : anthropic)
                ->guard_stream(responses ? responses_body : body, guard, options,
                               responses ? Json{{"apiType", "responses"}} : Json::object());
        std::optional<std::int64_t> next_number;
        auto* numbers = responses ? &next_number : nullptr;
        wire::SseReader reader("<fuzz input>", 1 << 20);
        std::vector<wire::SseEvent> events;
        for (std::size_t at = 0; at < text.size() && !guarded->ended(); at += piece) {
            events.clear();
            reader.feed(text.substr(at, piece), events);
            for (const auto& event : events) {
                const bool ended = guarded->ended();
                check(guarded->push(event), ended, numbers);
            }
        }
        if (!guarded->ended()) {  // as serve ends it: the last event without its blank line
            if (auto last = reader.finish()) check(guarded->push(*last), false, numbers);
        }
        const bool ended = guarded->ended();
        check(guarded->finish(true), ended, numbers);
    });
}
