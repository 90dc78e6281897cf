// Logprob entries held with their text (chat_logprobs.hpp).
#include "chat_logprobs.hpp"

#include <algorithm>

namespace cmfpipe::openai {
namespace {

// The bytes a token covers: its `bytes` (UTF-8 of the token, possibly a part of a character),
// else its text's.
std::size_t token_size(const Json& entry) {
    if (!entry.is_object()) return 0;
    auto bytes = entry.find("bytes");
    if (bytes != entry.end() && bytes->is_array()) return bytes->size();
    auto token = entry.find("token");
    return token != entry.end() && token->is_string() ? token->get_ref<const std::string&>().size()
                                                      : 0;
}

}  // namespace

void HeldLogprobs::add(const Json& entries, std::size_t raw_begin, std::size_t raw_end) {
    if (!entries.is_array()) return;
    std::size_t at = raw_begin;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const std::size_t end =
            i + 1 == entries.size() ? raw_end : std::min(raw_end, at + token_size(entries[i]));
        entries_.push_back({entries[i], at, end});
        at = end;
    }
}

std::vector<Json> HeldLogprobs::release(std::size_t raw_released,
                                        std::vector<wire::HeldBackText::Rewrite> rewrites) {
    for (auto& r : rewrites) rewrites_.push_back({std::move(r)});
    std::vector<Json> out;
    while (!entries_.empty() && entries_.front().end <= raw_released) {
        out.push_back(rewritten(entries_.front()));
        entries_.pop_front();
    }
    // A rewrite no held entry can touch any more is done with.
    const std::size_t next = entries_.empty() ? raw_released : entries_.front().begin;
    std::erase_if(rewrites_, [&](const Pending& p) { return p.rewrite.raw_end <= next; });
    return out;
}

Json HeldLogprobs::rewritten(const Entry& entry) {
    if (!entry.value.is_object()) return entry.value;
    const auto token = entry.value.find("token");
    const bool known = token != entry.value.end() && token->is_string() &&
                       token->get_ref<const std::string&>().size() == entry.end - entry.begin;
    std::string text;
    std::size_t at = entry.begin;  // raw bytes of the entry up to here are accounted for
    bool touched = false;
    for (Pending& p : rewrites_) {
        const auto& r = p.rewrite;
        const bool overlaps = r.raw_begin == r.raw_end
                                  ? entry.begin <= r.raw_begin && r.raw_begin < entry.end
                                  : r.raw_begin < entry.end && r.raw_end > entry.begin;
        if (!overlaps) continue;
        touched = true;
        const std::size_t from = std::max(r.raw_begin, entry.begin);
        if (known && from > at)
            text += token->get_ref<const std::string&>().substr(at - entry.begin, from - at);
        if (!p.placed) text += r.text;
        p.placed = true;
        at = std::max(at, std::min(r.raw_end, entry.end));
    }
    if (!touched) return entry.value;
    if (known && at < entry.end)
        text += token->get_ref<const std::string&>().substr(at - entry.begin);
    Json out = entry.value;
    if (out.contains("bytes") && out["bytes"].is_array()) {
        Json bytes = Json::array();
        for (unsigned char c : text) bytes.push_back(c);
        out["bytes"] = std::move(bytes);
    }
    out["token"] = std::move(text);
    if (out.contains("top_logprobs")) out["top_logprobs"] = Json::array();
    return out;
}

}  // namespace cmfpipe::openai
