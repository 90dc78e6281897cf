#include "rich_expansion.hpp"

#include <string>
#include <string_view>

#include "media_value.hpp"
#include "metadata.hpp"
#include "role_marker.hpp"
#include "thread_value.hpp"

namespace cmfpipe::prompty_parser {
namespace {

// The rich input whose token starts at `at`, if any.
const std::pair<const std::string, RichInput>* token_at(std::string_view text, std::size_t at,
                                                        const RequestContext& request) {
    for (const auto& entry : request.rich_inputs) {
        if (text.compare(at, entry.first.size(), entry.first) == 0) return &entry;
    }
    return nullptr;
}

// Builds the messages of one segment, piece by piece.
class SegmentBuilder {
  public:
    SegmentBuilder(const Segment& segment, std::vector<cmf::Message>& out)
        : role_(*cmf::enum_from_string<cmf::Role>(segment.role)),
          attributes_(segment.attributes),
          out_(out) {}

    // Text next to a nonce, trimmed of all surrounding whitespace as §6.4 step 5 says; left out
    // when nothing remains.
    void text_piece(std::string_view text) {
        while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
        while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
        if (!text.empty()) parts_.push_back(cmf::ContentPart::text(std::string(text)));
    }
    void part(cmf::PartPtr part) { parts_.push_back(std::move(part)); }
    void thread(std::vector<cmf::Message> messages) {
        flush();
        for (auto& m : messages) out_.push_back(std::move(m));
    }
    void flush() {
        if (parts_.empty()) return;
        out_.push_back(with_metadata(cmf::Message(role_, std::move(parts_)), attributes_));
        parts_.clear();
    }

  private:
    cmf::Role role_;
    const Json& attributes_;
    std::vector<cmf::Message>& out_;
    cmf::Content parts_;
};

void expand_one(Segment& segment, const RequestContext& request, std::vector<cmf::Message>& out) {
    const std::string_view text = segment.text;
    SegmentBuilder builder(segment, out);
    bool replaced_any = false;
    std::size_t piece_begin = 0;
    for (std::size_t at = text.find(rich_input_token_prefix); at != std::string_view::npos;
         at = text.find(rich_input_token_prefix, at + 1)) {
        const auto* entry = token_at(text, at, request);
        if (entry == nullptr) continue;
        const std::string& token = entry->first;
        const RichInput& input = entry->second;
        switch (input.kind) {
            case RichKind::thread: {
                auto messages = thread_messages(input.value, input.name);
                if (!messages) continue;  // not a list of messages: the nonce stays literal
                builder.text_piece(text.substr(piece_begin, at - piece_begin));
                builder.thread(std::move(*messages));
                break;
            }
            case RichKind::image:
            case RichKind::file:
            case RichKind::audio:
                builder.text_piece(text.substr(piece_begin, at - piece_begin));
                builder.part(media_part(to_string(input.kind), input.value, input.name));
                break;
        }
        replaced_any = true;
        piece_begin = at + token.size();
        at = piece_begin - 1;  // the next search starts right after this token
    }
    if (!replaced_any) {
        // No nonce: the segment as it is, even when empty (§6.6: empty messages are kept).
        out.push_back(
            with_metadata(cmf::Message::text(*cmf::enum_from_string<cmf::Role>(segment.role),
                                             std::move(segment.text)),
                          segment.attributes));
        return;
    }
    builder.text_piece(text.substr(piece_begin));
    builder.flush();
}

}  // namespace

std::vector<cmf::Message> expand_segments(std::vector<Segment> segments,
                                          const RequestContext& request) {
    std::vector<cmf::Message> out;
    out.reserve(segments.size());
    for (auto& segment : segments) expand_one(segment, request, out);  // texts moved, not copied
    return out;
}

}  // namespace cmfpipe::prompty_parser
