// A Chat Completions request's plain messages read straight from the body's text
// (BodyTextReader, cmfpipe/body_text_reader.hpp), for cmfpipe serve's hot path: no Json tree is
// built when the body is the common one, its messages each a role and a string content (its other
// members, tools and options, are skipped). It vouches for every key of the text (each object's
// keys distinct and unescaped, in what it skips too), so that the proxy may pass the text on as it
// came; any doubt gives nullopt and the proxy parses the body. The messages are
// plain_chat_request_messages' of the parsed body (tests/openai/request_text_test.cpp checks both
// on thousands of generated and mutated bodies).
#include "cmfpipe/body_text_reader.hpp"
#include "cmfpipe/limits.hpp"
#include "cmfpipe/wire/json_scan.hpp"
#include "openai_wire.hpp"

namespace cmfpipe::openai {
namespace {

using wire::JsonScan;
using wire::key_is;

// A message read, made into CMF only once the whole text is read: a text declined late wastes
// no messages.
struct ScannedMessage {
    cmf::Role role;
    std::string content;
};

// One element of "messages": {"role": ..., "content": ...} in either order, content optional.
bool scan_plain_message(JsonScan& scan, std::vector<ScannedMessage>& out) {
    if (!scan.enter_object()) return false;
    std::optional<cmf::Role> role;
    bool has_content = false;
    std::string content;
    std::string role_name;
    while (const auto key = scan.next_key()) {
        if (key_is(*key, "role") && !role) {
            if (!scan.string(role_name) || !(role = plain_request_role(role_name))) return false;
        } else if (key_is(*key, "content") && !has_content) {
            has_content = true;
            if (!scan.null() && !scan.string(content)) return false;
        } else {
            return false;  // another member, or one twice: the readers' to read or refuse
        }
    }
    if (!scan.ok() || !role) return false;
    out.push_back({*role, std::move(content)});
    return true;
}

// The body's messages onto `scanned`; false for a body the reader does not vouch for.
bool scan_request_body(std::string_view text, bool by_shape, std::vector<ScannedMessage>& scanned) {
    JsonScan scan(text, input_limits().max_depth);
    bool has_messages = false;
    const bool read = scan.plain_object_text<body_text_most_keys>([&](std::string_view key) {
        if (key_is(key, "messages")) {
            has_messages = true;
            return scan.elements([&] { return scan_plain_message(scan, scanned); });
        }
        if (key_is(key, "stream")) {
            bool stream = false;
            return scan.boolean(stream) && !stream;  // a guard needs the tree
        }
        if (by_shape && (key_is(key, "input") || key_is(key, "output")))
            return false;  // read as a Responses body
        return scan.skip_plain(body_text_most_keys);
    });
    return read && has_messages;
}

}  // namespace

std::optional<std::vector<cmf::Message>> scan_chat_request(std::string_view text,
                                                           const Json& options) {
    // The body names the Chat Completions API, or names none and is read as one by its shape
    // (see body_api): one look-up for both.
    const auto named = options.find("apiType");  // end() when options is no object
    const bool by_shape = named == options.end();
    if (!by_shape && !(named->is_string() && named->get_ref<const std::string&>() == "chat"))
        return std::nullopt;
    // Reused by the thread: no allocation for the list once it has grown.
    thread_local std::vector<ScannedMessage> thread_scanned;
    std::vector<ScannedMessage>& scanned = thread_scanned;
    scanned.clear();
    std::optional<std::vector<cmf::Message>> messages;
    if (scan_request_body(text, by_shape, scanned)) {
        messages.emplace();
        messages->reserve(scanned.size());
        for (ScannedMessage& message : scanned)
            messages->push_back(
                plain_request_message(message.role, std::move(message.content), messages->size()));
    }
    // Nothing of this text is kept for the next, nor what one long conversation grew.
    constexpr std::size_t most_kept = 1024;
    if (scanned.capacity() > most_kept)
        std::vector<ScannedMessage>().swap(scanned);
    else
        scanned.clear();
    return messages;
}

}  // namespace cmfpipe::openai
