// ChatML completion parsing (see completion_parser.hpp).
#include "completion_parser.hpp"

#include <deque>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/wire/text_position.hpp"
#include "cmfpipe/wire/tool_arguments.hpp"
#include "tag_scanner.hpp"
#include "tool_call_block.hpp"

namespace cmfpipe::chatml {
namespace {

using cmf::ContentPart;

std::string_view trim_left(std::string_view s) {
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    return s;
}
std::string_view trim_right(std::string_view s) {
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return s;
}
std::string_view trim(std::string_view s) {
    return trim_right(trim_left(s));
}

// One newline on each side, as the renderer writes <tool_response>\nX\n</tool_response>.
std::string_view strip_one_newline(std::string_view s) {
    if (!s.empty() && s.front() == '\n') s.remove_prefix(1);
    if (!s.empty() && s.back() == '\n') s.remove_suffix(1);
    return s;
}

class Parser {
  public:
    Parser(std::string_view input, const Settings& settings) : input_(input), settings_(settings) {}

    std::vector<cmf::Message> run() {
        std::size_t lead = input_.find_first_not_of(" \n\r\t");
        if (lead != std::string_view::npos && input_.substr(lead, 12) == spelling(Tag::im_start)) {
            whole_turns_ = true;
            state_ = State::between;
        } else {
            begin_turn(settings_.role);
            if (settings_.enable_thinking == true && role_ == "assistant") state_ = State::think;
        }
        TagScanner scanner(input_);
        while (auto piece = scanner.next()) feed(*piece);
        finish();
        return std::move(messages_);
    }

  private:
    enum class State { between, role_line, body, think, call, response };

    [[noreturn]] void fail(std::size_t offset, const std::string& what) const {
        throw ValueError("chatml: " + what, wire::location_of(input_, offset, settings_.source));
    }

    void begin_turn(std::string role) {
        role_ = std::move(role);
        parts_.clear();
        text_.clear();
        text_touches_tag_ = false;
        seen_any_tag_ = false;
        errors_ = Json::array();
        flagged_ = Json::object();
        state_ = State::body;
    }

    void feed(const Piece& p) {
        if (p.kind == Piece::Kind::partial_marker) {
            if (state_ == State::call || state_ == State::response) {
                block_ += p.text;  // still inside the block: part of its unfinished body
            }
            pending_tail_ = std::string(p.text);
            return;
        }
        switch (state_) {
            case State::between:
                between(p);
                return;
            case State::role_line:
                role_line(p);
                return;
            case State::body:
                body(p);
                return;
            case State::think:
                think(p);
                return;
            case State::call:
                call(p);
                return;
            case State::response:
                response(p);
                return;
        }
    }

    void between(const Piece& p) {
        if (p.kind == Piece::Kind::marker && p.marker == Tag::im_start) {
            state_ = State::role_line;
            role_text_.clear();
            return;
        }
        if (p.kind == Piece::Kind::text && trim(p.text).empty()) return;
        std::string_view shown = trim_left(p.text);
        fail(p.offset + (p.text.size() - shown.size()),
             "expected <|im_start|> to begin a turn, found '" + std::string(shown.substr(0, 40)) +
                 "'");
    }

    void role_line(const Piece& p) {
        if (p.kind != Piece::Kind::text)
            fail(p.offset, "a turn header must be a role and a newline before any tag");
        std::size_t nl = p.text.find('\n');
        role_text_ += p.text.substr(0, nl);
        if (nl == std::string_view::npos) return;
        std::string_view role = trim(role_text_);
        role = role.substr(0, role.find(' '));
        if (!cmf::enum_from_string<cmf::Role>(role))
            fail(p.offset, "unknown role '" + std::string(role) + "' in a turn header");
        begin_turn(std::string(role));
        Piece rest = p;
        rest.text = p.text.substr(nl + 1);
        rest.offset = p.offset + nl + 1;
        if (!rest.text.empty()) body(rest);
    }

    void body(const Piece& p) {
        if (p.kind == Piece::Kind::text) {
            text_ += p.text;
            return;
        }
        const bool assistant = role_ == "assistant";
        switch (p.marker) {
            case Tag::im_end:
            case Tag::end_of_text:
                end_turn(true);
                return;
            case Tag::im_start:
                if (whole_turns_)
                    fail(p.offset,
                         "<|im_start|> inside a turn that was not closed with <|im_end|>");
                text_ += p.text;
                return;
            case Tag::think_open:
                if (!assistant) break;
                flush_text(true);
                state_ = State::think;
                return;
            case Tag::think_close:
                if (assistant && parts_.empty() && !seen_any_tag_) {  // the prompt opened the block
                    parts_.push_back(ContentPart::thinking(std::string(trim(text_))));
                    text_.clear();
                    text_touches_tag_ = true;
                    seen_any_tag_ = true;
                    return;
                }
                break;
            case Tag::call_open:
                if (!assistant) break;
                flush_text(true);
                block_.clear();
                block_offset_ = p.offset;
                state_ = State::call;
                return;
            case Tag::response_open:
                if (assistant) break;
                flush_text(true);
                block_.clear();
                state_ = State::response;
                return;
            default:
                break;
        }
        text_ += p.text;  // a tag with no meaning here stays text
    }

    void think(const Piece& p) {
        if (p.kind == Piece::Kind::marker && p.marker == Tag::think_close) {
            parts_.push_back(ContentPart::thinking(std::string(trim(text_))));
            text_.clear();
            text_touches_tag_ = true;
            seen_any_tag_ = true;
            state_ = State::body;
            return;
        }
        if (p.kind == Piece::Kind::marker &&
            (p.marker == Tag::im_end || p.marker == Tag::end_of_text)) {
            parts_.push_back(ContentPart::thinking(std::string(trim(text_))));
            text_.clear();
            end_turn(true);
            return;
        }
        text_ += p.text;
    }

    void call(const Piece& p) {
        if (p.kind == Piece::Kind::marker && p.marker == Tag::call_close) {
            finish_call(p.offset + p.text.size());
            state_ = State::body;
            return;
        }
        block_ += p.text;
    }

    void response(const Piece& p) {
        if (p.kind == Piece::Kind::marker && p.marker == Tag::response_close) {
            add_result(std::string(strip_one_newline(block_)));
            block_.clear();
            text_touches_tag_ = true;
            state_ = State::body;
            return;
        }
        block_ += p.text;
    }

    void finish_call(std::size_t end_offset) {
        seen_any_tag_ = true;
        text_touches_tag_ = true;
        ToolCallBlock read = read_tool_call_block(block_);
        if (read.name) {
            // A named call: its arguments follow the one tool-arguments policy (an object, or
            // no part and the raw text flagged in custom.invalid_tool_arguments).
            cmf::ToolCall call{"call_" + std::to_string(++calls_), *read.name, Json::object(),
                               std::nullopt};
            open_calls_.push_back({call.tool_call_id, call.name});
            if (read.arguments.error) {
                wire::flag_invalid_tool_arguments(flagged_, call, read.arguments);
            } else {
                call.arguments = std::move(read.arguments.object);
                parts_.push_back(ContentPart::make(std::move(call)));
            }
            block_.clear();
            return;
        }
        const std::string& error = read.error;
        std::size_t error_at = block_offset_ + spelling(Tag::call_open).size() + read.error_offset;
        auto where = wire::location_of(input_, error_at, settings_.source);
        errors_.push_back(Json{{"message", error}, {"line", where.line}, {"column", where.column}});
        parts_.push_back(ContentPart::text(
            std::string(input_.substr(block_offset_, end_offset - block_offset_))));
        block_.clear();
    }

    void add_result(std::string content) {
        std::string id, name;
        if (!open_calls_.empty()) {
            id = open_calls_.front().first;
            name = open_calls_.front().second;
            open_calls_.pop_front();
        }
        parts_.push_back(
            ContentPart::make(cmf::ToolResult{id, name, Json(std::move(content)), false}));
        seen_any_tag_ = true;
    }

    // The text gathered so far becomes a part; trimmed on the sides that touch a tag.
    void flush_text(bool before_tag) {
        std::string_view t = text_;
        if (text_touches_tag_) t = trim_left(t);
        if (before_tag) t = trim_right(t);
        if (!t.empty()) parts_.push_back(ContentPart::text(std::string(t)));
        text_.clear();
        text_touches_tag_ = false;
        if (before_tag) seen_any_tag_ = true;
    }

    void end_turn(bool closed) {
        // A cut text may yet touch a tag: its trailing whitespace waits like the rest will.
        if (state_ == State::body) flush_text(!closed && !settings_.complete);
        cmf::Role role = *cmf::enum_from_string<cmf::Role>(role_);
        bool only_results = !parts_.empty();
        for (const auto& part : parts_)
            if (part->type() != cmf::ContentType::tool_result) only_results = false;
        if (only_results) role = cmf::Role::tool;

        Json custom = Json::object();
        if (!closed) {
            if (!settings_.complete) custom["incomplete"] = true;
            std::string pending;
            if (state_ == State::call)
                pending = std::string(spelling(Tag::call_open)) + block_;
            else if (state_ == State::response)
                pending = std::string(spelling(Tag::response_open)) + block_;
            else
                pending = pending_tail_;
            if (!pending.empty()) custom["pending"] = pending;
        }
        if (!errors_.empty()) custom["parse_errors"] = errors_;
        if (!flagged_.empty()) custom.update(flagged_);
        flagged_ = Json::object();
        auto ext = std::make_shared<cmf::Extensions>();
        if (role == cmf::Role::assistant) {
            auto completion = std::make_shared<cmf::CompletionExtension>();
            if (closed) completion->stop_reason = cmf::StopReason::end;
            completion->raw_format = "chatml";
            ext->completion = std::move(completion);
        }
        if (!custom.empty()) ext->custom = std::make_shared<const Json>(std::move(custom));
        messages_.emplace_back(role, std::move(parts_), std::nullopt,
                               ext->empty() ? nullptr : std::move(ext));
        parts_.clear();
        pending_tail_.clear();
        state_ = State::between;
    }

    void finish() {
        switch (state_) {
            case State::between:
                if (!pending_tail_.empty() &&
                    whole_turns_) {  // "<|im_st" cut at the start of a turn
                    begin_turn("assistant");
                    end_turn(false);
                }
                return;
            case State::role_line:
                begin_turn("assistant");
                pending_tail_ = "<|im_start|>" + role_text_;
                end_turn(false);
                return;
            case State::think:
                parts_.push_back(ContentPart::thinking(std::string(trim(text_))));
                text_.clear();
                end_turn(false);
                return;
            case State::body:
                if (!pending_tail_.empty() && settings_.complete) {  // whole text: the tail is text
                    text_ += pending_tail_;
                    pending_tail_.clear();
                }
                end_turn(false);
                return;
            case State::call:
            case State::response:
                end_turn(false);
                return;
        }
    }

    std::string_view input_;
    const Settings& settings_;
    bool whole_turns_ = false;
    State state_ = State::between;
    std::string role_;
    std::string role_text_;
    cmf::Content parts_;
    std::string text_;
    bool text_touches_tag_ = false;
    bool seen_any_tag_ = false;
    std::string block_;
    std::size_t block_offset_ = 0;
    std::string pending_tail_;
    Json errors_ = Json::array();
    Json flagged_ = Json::object();  // custom.invalid_tool_arguments of the current turn
    int calls_ = 0;
    std::deque<std::pair<std::string, std::string>> open_calls_;
    std::vector<cmf::Message> messages_;
};

}  // namespace

std::vector<cmf::Message> parse_completion(std::string_view text, const Settings& settings) {
    return Parser(text, settings).run();
}

}  // namespace cmfpipe::chatml
