#pragma once
// The state one request carries from step to step (render -> parse -> process -> adapt).
// It is a plain value owned by the caller: no globals, no thread-locals.
//
// This header also owns the request's random tokens: the rich-input token format (Prompty §5.3)
// and the one source of randomness every token of a request is drawn from.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "cmfpipe/json.hpp"

namespace cmfpipe {

// The kinds of input the template never sees as a value: it sees a token, and the parser puts
// the value back in its place (a thread's messages, a media part).
enum class RichKind { thread, image, file, audio };

std::string_view to_string(RichKind kind);
// "thread" | "image" | "file" | "audio"; std::nullopt for anything else.
std::optional<RichKind> rich_kind_from_string(std::string_view text);

// An input of a rich kind that the renderer saw as a token.
struct RichInput {
    std::string name;  // the input's name in the template
    RichKind kind = RichKind::thread;
    Json value;  // thread: normalize_thread's form; media: the caller's value (URL, data, object)
};

// The token that stands for a rich input in rendered text, whatever its kind:
// "__PROMPTY_THREAD_<hex>_<name>__". A parser finds tokens by this prefix, then looks the whole
// token up in RequestContext::rich_inputs.
inline constexpr std::string_view rich_input_token_prefix = "__PROMPTY_THREAD_";
std::string rich_input_token(std::string_view hex, std::string_view input_name);

// `bytes` bytes from the OS's CSPRNG (getrandom), as lowercase hex (2 * bytes characters). Every
// random token of a request (rich-input tokens, the strict-mode marker nonce) is drawn here. Each
// thread draws 256 bytes at a time and hands each out once (a forked child draws its own).
// Throws cmfpipe::Error when the OS cannot supply them (never falls back to a weaker source).
std::string random_hex(std::size_t bytes);

// A thread input in any accepted form, as a JSON array of messages {role, content: [parts]}:
//   a list of messages (CMF JSON or {role, content}), or {"messages": [...]} around one;
//   content may be a plain string (-> one text part), missing or null (-> no parts), or given
//   as "parts". Anything else is a ValueError naming the input. Normalising twice changes nothing.
Json normalize_thread(const Json& value, std::string_view input_name);

struct RequestContext {
    // Nonce that strict-mode parsing expects on author role markers; empty when not strict.
    std::string marker_nonce;
    // Rich inputs by the token that stands for them in the rendered text.
    std::map<std::string, RichInput> rich_inputs;
    // Trace context (trace id, parent span) and free-form attributes.
    Json trace = Json::object();
};

}  // namespace cmfpipe
