// A Messages API request's conversation read straight from the body's text (BodyTextReader,
// cmfpipe/body_text_reader.hpp), for cmfpipe serve's hot path on /v1/messages: no Json tree is
// built when the body is the common one: `system` absent, null, a string or a list of text
// blocks, and each message a role (user or assistant) with a string content or a list of text
// blocks (cache_control allowed: a setting). Its other members (model, max_tokens, tools,
// metadata...) are skipped with their keys checked, so the reader vouches for every key of the
// text and the proxy may pass it on as it came; any doubt (another block, a member of a message
// the full path would refuse or read, "stream": true, a key twice or escaped) gives nullopt and
// the proxy parses the body. The messages are body_request_messages' of the parsed body
// (tests/anthropic/request_text_test.cpp checks both on thousands of generated and mutated
// bodies).
#include "anthropic_wire.hpp"
#include "cmfpipe/body_text_reader.hpp"
#include "cmfpipe/cmf/extensions.hpp"
#include "cmfpipe/limits.hpp"
#include "cmfpipe/wire/json_scan.hpp"

namespace cmfpipe::anthropic {
namespace {

using wire::JsonScan;
using wire::key_is;

// The provenance source body_request_messages gives each message (body.cpp's request_source).
constexpr std::string_view request_text_source = "anthropic request";

// A message read, made into CMF only once the whole text is read: a text declined late wastes
// no messages.
struct ScannedMessage {
    cmf::Role role;
    std::vector<std::string> texts;
};

// A string (one text part) or a list of text blocks (a part each), as read_conversation reads
// a message's content and a system that is no string.
bool scan_request_content(JsonScan& scan, std::vector<std::string>& texts) {
    if (scan.at_array())
        return scan.elements(
            [&] { return scan_text_block(scan, texts, /*any_other_member=*/false); });
    return scan.string(texts.emplace_back());
}

// One element of "messages": {"role": "user"|"assistant", "content": ...} in either order, both
// required; any other member is the full path's to read or refuse.
bool scan_request_message(JsonScan& scan, std::vector<ScannedMessage>& out) {
    if (!scan.enter_object()) return false;
    std::optional<cmf::Role> role;
    bool has_content = false;
    std::vector<std::string> texts;
    std::string role_name;
    while (const auto key = scan.next_key()) {
        if (key_is(*key, "role") && !role) {
            if (!scan.string(role_name)) return false;
            if (role_name == "user") {
                role = cmf::Role::user;
            } else if (role_name == "assistant") {
                role = cmf::Role::assistant;
            } else {
                return false;
            }
        } else if (key_is(*key, "content") && !has_content) {
            has_content = true;
            if (!scan_request_content(scan, texts)) return false;
        } else {
            return false;  // another member, or one twice
        }
    }
    if (!scan.ok() || !role || !has_content) return false;
    out.push_back({*role, std::move(texts)});
    return true;
}

// The body's system and messages; false for a body the reader does not vouch for.
bool scan_request_body(std::string_view text, std::optional<std::vector<std::string>>& system,
                       std::vector<ScannedMessage>& scanned) {
    JsonScan scan(text, input_limits().max_depth);
    bool has_messages = false;
    const bool read = scan.plain_object_text<body_text_most_keys>([&](std::string_view key) {
        if (key_is(key, "messages")) {
            has_messages = true;
            return scan.elements([&] { return scan_request_message(scan, scanned); });
        }
        if (key_is(key, "system"))  // null: read as absent
            return scan.null() || scan_request_content(scan, system.emplace());
        if (key_is(key, "stream")) {
            bool stream = false;
            return scan.boolean(stream) && !stream;  // a guard needs the tree
        }
        return scan.skip_plain(body_text_most_keys);
    });
    return read && has_messages;
}

// What with_body_origin gives, the provenance set as the message is made (not a second message).
cmf::Message request_text_message(cmf::Role role, std::vector<std::string>& texts,
                                  std::string origin) {
    cmf::Content parts;
    parts.reserve(texts.size());
    for (std::string& text : texts) parts.push_back(cmf::ContentPart::text(std::move(text)));
    auto provenance = std::make_shared<cmf::ProvenanceExtension>();
    provenance->source = std::string(request_text_source);
    provenance->message_id = std::move(origin);
    auto extensions = std::make_shared<cmf::Extensions>();
    extensions->provenance = std::move(provenance);
    return cmf::Message(role, std::move(parts), std::nullopt, std::move(extensions));
}

}  // namespace

std::optional<std::vector<cmf::Message>> scan_messages_request(std::string_view text) {
    std::optional<std::vector<std::string>> system;
    std::vector<ScannedMessage> scanned;
    if (!scan_request_body(text, system, scanned)) return std::nullopt;
    // The system first wherever it is in the text, as read_conversation reads it.
    std::vector<cmf::Message> messages;
    messages.reserve(scanned.size() + (system ? 1 : 0));
    if (system) messages.push_back(request_text_message(cmf::Role::system, *system, "system"));
    for (std::size_t k = 0; k < scanned.size(); ++k)
        messages.push_back(request_text_message(scanned[k].role, scanned[k].texts,
                                                "messages[" + std::to_string(k) + "]"));
    return messages;
}

}  // namespace cmfpipe::anthropic
