// The common chat.completion answer read straight from its text into CMF, without a Json tree:
// `"object": "chat.completion"`, choices whose message has a plain string content (or none) and no
// refusal, reasoning or tool call. It gives exactly what parse_wire_json + read_chat_completion
// give (tests/openai/completion_scan_test.cpp checks both paths on thousands of generated and
// mutated answers), and answers only what it is sure of: any doubt (a key twice in any object, a
// key spelled with an escape, a member of another type, anything the full path reads that is not
// listed here, bad syntax, nesting past max_depth) gives nullopt and the caller takes the full
// path, which says what is wrong. So it vouches for every key of the text, and an answer it reads
// may go back as it came (BodyTextReader::answer_text_messages, cmfpipe/body_text_reader.hpp,
// what the proxy asks first; from_wire stays the full path, so that an answer this declines is not
// scanned twice). At one connection the tree and the readers over it cost a proxied answer more
// than the rest of its reading together (allocations, code touched cold).
#include "cmfpipe/body_text_reader.hpp"
#include "cmfpipe/limits.hpp"
#include "cmfpipe/wire/json_scan.hpp"
#include "cmfpipe/wire/structured_output.hpp"
#include "openai_wire.hpp"

namespace cmfpipe::openai {
namespace {

using wire::JsonScan;
using wire::key_is;

// A member the full path does not read: skipped, its objects' keys checked as this reader's.
bool skip_unread(JsonScan& scan) {
    return scan.skip_plain(body_text_most_keys);
}

// A member the fast path takes only when it says nothing: null (and for tool_calls, []).
bool scan_absent(JsonScan& scan, bool empty_array_too) {
    if (scan.null()) return true;
    return empty_array_too && scan.enter_array() && !scan.next_element() && scan.ok();
}

// usage: read_token_usage's three counts.
bool scan_usage(JsonScan& scan, std::optional<cmf::TokenUsage>& usage) {
    if (scan.null()) {
        usage.reset();
        return true;
    }
    std::optional<std::int64_t> input, output, total;
    const bool read = scan.plain_object<body_text_most_keys>([&](std::string_view key) {
        if (key_is(key, "prompt_tokens")) return scan.optional_integer(input);
        if (key_is(key, "completion_tokens")) return scan.optional_integer(output);
        if (key_is(key, "total_tokens")) return scan.optional_integer(total);
        return skip_unread(scan);
    });
    if (!read) return false;
    cmf::TokenUsage tokens;
    tokens.input_tokens = input.value_or(0);
    tokens.output_tokens = output.value_or(0);
    tokens.total_tokens = total.value_or(tokens.input_tokens + tokens.output_tokens);
    usage = tokens;
    return true;
}

struct ScannedChoice {
    std::string content;  // empty: no text part
    std::optional<std::string> finish_reason;
};

// choices[i].message: role assistant (or none), content a string (or none); a member that would
// make a part of its own (refusal, reasoning, tool calls) only when null. Other members the full
// path does not read either.
bool scan_message(JsonScan& scan, std::string& content) {
    return scan.plain_object<body_text_most_keys>([&](std::string_view key) {
        if (key_is(key, "role")) {
            std::string role;
            return scan.null() || (scan.string(role) && role == "assistant");
        }
        if (key_is(key, "content")) return scan.null() || scan.string(content);
        if (key_is(key, "tool_calls")) return scan_absent(scan, true);
        if (key_is(key, "refusal") || key_is(key, "reasoning_content") || key_is(key, "reasoning"))
            return scan_absent(scan, false);
        return skip_unread(scan);
    });
}

bool scan_choice(JsonScan& scan, ScannedChoice& choice) {
    bool has_message = false;
    const bool read = scan.plain_object<body_text_most_keys>([&](std::string_view key) {
        if (key_is(key, "message")) {
            has_message = true;
            return scan_message(scan, choice.content);
        }
        if (key_is(key, "finish_reason")) return scan.optional_string(choice.finish_reason);
        return skip_unread(scan);
    });
    return read && has_message;
}

// The answer is read as a Chat Completion whatever its shape (no apiType), or named one.
bool reads_as_chat(const Json& options) {
    if (!options.is_object()) return true;
    const auto named = options.find("apiType");
    return named == options.end() ||
           (named->is_string() && named->get_ref<const std::string&>() == "chat");
}

}  // namespace

std::optional<std::vector<cmf::Message>> scan_chat_completion(std::string_view text,
                                                              const Json& options) {
    if (!reads_as_chat(options)) return std::nullopt;
    JsonScan scan(text, input_limits().max_depth);
    CompletionInfo info;
    info.raw_format = "openai";
    std::vector<ScannedChoice> choices;
    bool completion = false;
    const bool read = scan.plain_object_text<body_text_most_keys>([&](std::string_view key) {
        if (key_is(key, "id")) return scan.optional_string(info.id);
        if (key_is(key, "model")) return scan.optional_string(info.model);
        if (key_is(key, "created")) return scan.optional_integer(info.created);
        if (key_is(key, "usage")) return scan_usage(scan, info.usage);
        if (key_is(key, "object")) {
            // Only a whole answer's: a chunk, a Responses answer or a list reads otherwise.
            std::string object;
            completion = true;
            return scan.string(object) && object == "chat.completion";
        }
        if (key_is(key, "choices"))
            return scan.elements([&] { return scan_choice(scan, choices.emplace_back()); });
        if (key_is(key, "error") || key_is(key, "output") || key_is(key, "data") ||
            key_is(key, "messages"))
            return false;  // members that make the full path read the answer otherwise
        return skip_unread(scan);
    });
    if (!read || !completion || choices.empty()) return std::nullopt;

    std::vector<cmf::Message> out;
    out.reserve(choices.size());
    for (ScannedChoice& choice : choices) {
        cmf::Content parts;
        if (!choice.content.empty())
            parts.push_back(cmf::ContentPart::text(std::move(choice.content)));
        Json custom;
        wire::add_structured_output(custom, parts, options);
        CompletionInfo choice_info = info;
        choice_info.finish_reason = std::move(choice.finish_reason);
        out.push_back(with_completion_info(cmf::Message(cmf::Role::assistant, std::move(parts)),
                                           choice_info, std::move(custom)));
    }
    return out;
}

}  // namespace cmfpipe::openai
