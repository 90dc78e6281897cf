#include "cmfpipe/wire/held_text.hpp"

namespace cmfpipe::wire {
namespace {

bool continuation_byte(char c) {
    return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

}  // namespace

bool HeldBackText::update(std::string_view processed) {
    if (!processed.starts_with(sent_)) {
        held_.clear();
        return false;
    }
    held_.assign(processed.substr(sent_.size()));
    return true;
}

std::string HeldBackText::release(bool whole) {
    const std::size_t cut = whole ? held_.size() : cut_before_last_code_points(held_, holdback_);
    std::string out = held_.substr(0, cut);
    sent_ += out;
    held_.erase(0, cut);
    return out;
}

std::size_t cut_before_last_code_points(std::string_view text, std::size_t count) {
    std::size_t at = text.size();
    for (std::size_t n = 0; n < count; ++n) {
        if (at == 0) return 0;
        --at;
        // Back to the sequence's lead byte (at most 3 continuation bytes: text a processor made
        // need not be valid UTF-8, and the walk stays bounded).
        for (int k = 0; k < 3 && at > 0 && continuation_byte(text[at]); ++k) --at;
    }
    return at;
}

}  // namespace cmfpipe::wire
