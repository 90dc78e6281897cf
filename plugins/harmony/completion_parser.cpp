// The harmony completion state machine (see completion_parser.hpp).
#include "completion_parser.hpp"

#include <functional>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/wire/text_position.hpp"

namespace cmfpipe::harmony {
namespace {

bool only_whitespace(std::string_view text) {
    for (char c : text)
        if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return false;
    return true;
}

class Machine {
  public:
    Machine(std::string_view input, const ParseSettings& settings,
            const std::function<void(RawMessage)>& emit)
        : input_(input), settings_(settings), emit_(emit) {
        if (settings.open_role) {
            state_ = State::header;
            preset_role_ = settings.open_role;
            header_from_prompt_ = true;
        }
    }

    void run() {
        TokenScanner scanner(input_);
        while (auto piece = scanner.next()) feed(*piece);
        finish();
    }

  private:
    enum class State { expect_start, header, content };

    [[noreturn]] void fail(std::size_t offset, const std::string& what) const {
        throw ValueError("harmony: " + what,
                         wire::location_of(input_, offset, settings_.source_name));
    }

    void feed(const Piece& p) {
        switch (state_) {
            case State::expect_start:
                on_expect_start(p);
                break;
            case State::header:
                on_header(p);
                break;
            case State::content:
                on_content(p);
                break;
        }
    }

    void on_expect_start(const Piece& p) {
        if (p.kind == Piece::Kind::marker && p.marker == Marker::start) {
            begin_header(p.offset + p.text.size(), std::nullopt);
        } else if (p.kind == Piece::Kind::text && only_whitespace(p.text)) {
            // whitespace between messages carries nothing
        } else if (p.kind == Piece::Kind::partial_marker) {
            pending_tail_ = std::string(p.text);
            pending_offset_ = p.offset;
        } else {
            std::size_t skip = 0;  // point at what is there, not at the whitespace before it
            while (skip < p.text.size() && only_whitespace(p.text.substr(skip, 1))) ++skip;
            fail(p.offset + skip, "expected <|start|> to begin a message, found '" +
                                      std::string(p.text.substr(skip, 40)) + "'");
        }
    }

    void begin_header(std::size_t offset, std::optional<std::string> role) {
        state_ = State::header;
        preset_role_ = std::move(role);
        header_from_prompt_ = false;
        header_text_.clear();
        header_offset_ = offset;
    }

    void on_header(const Piece& p) {
        if (p.kind == Piece::Kind::partial_marker) {
            header_text_ += p.text;
            return;
        }
        if (p.kind == Piece::Kind::text) {
            header_text_ += p.text;
            return;
        }
        switch (p.marker) {
            case Marker::channel:
            case Marker::constrain:
                header_text_ += p.text;
                return;
            case Marker::start:
                // "<|start|>" right where the prompt's header begins: the completion names its
                // own role. Anywhere else (after the completion's own <|start|> too) it is no
                // longer harmony: "<|start|><|start|>" fails like "<|start|>assistant<|start|>".
                if (header_from_prompt_ && only_whitespace(header_text_)) {
                    begin_header(p.offset + p.text.size(), std::nullopt);
                    return;
                }
                fail(p.offset, "<|start|> inside the message header '" + header_text_ + "'");
            case Marker::message: {
                RawMessage m;
                try {
                    m.header = parse_header(header_text_, preset_role_);
                } catch (const HeaderError& e) {
                    fail(header_offset_,
                         std::string(e.what()) + " (header '" + header_text_ + "')");
                }
                m.content_offset = p.offset + p.text.size();
                current_ = std::move(m);
                state_ = State::content;
                return;
            }
            case Marker::end:
            case Marker::return_:
            case Marker::call:
                fail(p.offset, std::string(p.text) + " ends a message whose header '" +
                                   header_text_ + "' never reached <|message|>");
        }
    }

    void on_content(const Piece& p) {
        if (p.kind == Piece::Kind::marker && ends_message(p.marker)) {
            current_.stop = p.marker;
            emit_(std::move(current_));
            current_ = RawMessage{};
            state_ = State::expect_start;
            return;
        }
        if (p.kind == Piece::Kind::partial_marker) {
            current_.pending = std::string(p.text);  // held back: it may become a stop token
            return;
        }
        current_.content += p.text;  // text, and markers that do not end a message, verbatim
    }

    void finish() {
        switch (state_) {
            case State::expect_start:
                if (!pending_tail_.empty()) {
                    RawMessage m;
                    m.header.role = "assistant";
                    m.incomplete = true;
                    m.pending = pending_tail_;
                    m.content_offset = pending_offset_;
                    emit_(std::move(m));
                }
                return;
            case State::header: {
                RawMessage m;
                m.header = parse_partial_header(header_text_, preset_role_);
                m.incomplete = !settings_.complete;
                m.pending = header_text_;
                m.content_offset = input_.size();
                if (settings_.complete && !only_whitespace(header_text_))
                    fail(header_offset_,
                         "the completion ends inside the message header '" + header_text_ + "'");
                emit_(std::move(m));
                return;
            }
            case State::content:
                if (settings_.complete) {  // whole text: a marker-like tail is content after all
                    current_.content += current_.pending;
                    current_.pending.clear();
                }
                current_.incomplete = !settings_.complete;
                emit_(std::move(current_));
                return;
        }
    }

    std::string_view input_;
    const ParseSettings& settings_;
    State state_ = State::expect_start;
    std::optional<std::string> preset_role_;
    bool header_from_prompt_ = false;  // the header was opened by the prompt, not the completion
    std::string header_text_;
    std::size_t header_offset_ = 0;
    RawMessage current_;
    const std::function<void(RawMessage)>& emit_;
    std::string pending_tail_;
    std::size_t pending_offset_ = 0;
};

}  // namespace

std::vector<RawMessage> parse_completion(std::string_view text, const ParseSettings& settings) {
    std::vector<RawMessage> messages;
    parse_completion(text, settings, [&](RawMessage m) { messages.push_back(std::move(m)); });
    return messages;
}

void parse_completion(std::string_view text, const ParseSettings& settings,
                      const std::function<void(RawMessage)>& emit) {
    Machine(text, settings, emit).run();
}

}  // namespace cmfpipe::harmony
