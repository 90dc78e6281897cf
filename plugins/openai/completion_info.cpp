// What a returned assistant message carries besides its parts: CompletionExtension (stop reason,
// token usage, model, wire format, creation time), ProvenanceExtension (the response id) and,
// when there is anything to keep, the custom slot.
#include <chrono>
#include <ctime>

#include "cmfpipe/cmf/extensions.hpp"
#include "cmfpipe/errors.hpp"
#include "openai_wire.hpp"

namespace cmfpipe::openai {
namespace {

// OpenAI finish_reason / Responses status -> CMF StopReason; nullopt when CMF has no equivalent.
std::optional<cmf::StopReason> stop_reason_of(std::string_view reason) {
    if (reason == "stop" || reason == "completed") return cmf::StopReason::end;
    if (reason == "length" || reason == "max_output_tokens") return cmf::StopReason::max_tokens;
    if (reason == "tool_calls" || reason == "function_call") return cmf::StopReason::call;
    return std::nullopt;
}

}  // namespace

std::string iso_timestamp(std::int64_t unix_seconds) {
    // Years 1970-9999 (every answer's): the civil date by <chrono>, without gmtime_r and strftime.
    constexpr std::int64_t year_10000 = 253402300800;  // 10000-01-01T00:00:00Z
    if (unix_seconds >= 0 && unix_seconds < year_10000) {
        using namespace std::chrono;
        const sys_seconds at{seconds{unix_seconds}};
        const sys_days day = floor<days>(at);
        const year_month_day date{day};
        const hh_mm_ss time{at - day};
        char text[] = "YYYY-MM-DDTHH:MM:SSZ";
        auto put = [&text](std::size_t at_offset, unsigned value, std::size_t width) {
            for (std::size_t i = width; i-- > 0; value /= 10)
                text[at_offset + i] = static_cast<char>('0' + value % 10);
        };
        put(0, static_cast<unsigned>(static_cast<int>(date.year())), 4);
        put(5, static_cast<unsigned>(date.month()), 2);
        put(8, static_cast<unsigned>(date.day()), 2);
        put(11, static_cast<unsigned>(time.hours().count()), 2);
        put(14, static_cast<unsigned>(time.minutes().count()), 2);
        put(17, static_cast<unsigned>(time.seconds().count()), 2);
        return text;
    }
    std::time_t t = static_cast<std::time_t>(unix_seconds);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

cmf::Message with_completion_info(cmf::Message message, const CompletionInfo& info, Json custom) {
    auto completion = std::make_shared<cmf::CompletionExtension>();
    if (info.finish_reason) {
        completion->stop_reason = stop_reason_of(*info.finish_reason);
        if (!completion->stop_reason) custom["provider_stop_reason"] = *info.finish_reason;
    }
    completion->tokens = info.usage;
    completion->model = info.model;
    completion->raw_format = info.raw_format;
    if (info.created) completion->created_at = iso_timestamp(*info.created);
    // The slots set together: one new extensions record, one new message.
    cmf::Extensions extensions = message.extensions();
    extensions.completion = std::move(completion);
    if (info.id) {
        auto provenance = std::make_shared<cmf::ProvenanceExtension>();
        provenance->source = "openai";
        provenance->message_id = info.id;
        extensions.provenance = std::move(provenance);
    }
    if (!custom.empty()) {
        if (!custom.is_object())
            throw ValueError("cmf::Message::with_custom: custom must be a JSON object");
        extensions.custom = std::make_shared<const Json>(std::move(custom));
    }
    return message.with_extensions(std::make_shared<const cmf::Extensions>(std::move(extensions)));
}

cmf::TokenUsage read_token_usage(const wire::WireNode& usage, std::string_view input_key,
                                 std::string_view output_key) {
    usage.object();
    cmf::TokenUsage tokens;
    tokens.input_tokens = usage.optional_integer(input_key).value_or(0);
    tokens.output_tokens = usage.optional_integer(output_key).value_or(0);
    tokens.total_tokens =
        usage.optional_integer("total_tokens").value_or(tokens.input_tokens + tokens.output_tokens);
    return tokens;
}

}  // namespace cmfpipe::openai
