// The scanner is hand-written (no regex): find the open delimiter, read the sigil, find the
// matching close. Standalone lines are decided afterwards, on the whole token list, because a
// tag's line is only known once the text on both sides of it is.
#include "lexer.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "cmfpipe/errors.hpp"
#include "whitespace.hpp"

namespace cmfpipe::mustache {
namespace {

// The first line of a tag, shortened, for messages.
std::string tag_excerpt(std::string_view source, std::size_t at) {
    std::string_view rest = source.substr(at);
    std::size_t stop = std::min<std::size_t>(rest.find('\n'), 40);
    return std::string(rest.substr(0, stop));
}

class Scanner {
  public:
    Scanner(std::string_view source, Delimiters start, const LineIndex& lines)
        : source_(source), delimiters_(std::move(start)), lines_(lines) {}

    std::vector<Token> run() {
        while (pos_ < source_.size()) {
            std::size_t open_at = source_.find(delimiters_.open, pos_);
            if (open_at == std::string_view::npos) {
                push_text(pos_, source_.size());
                break;
            }
            if (open_at > pos_) push_text(pos_, open_at);
            scan_tag(open_at);
        }
        return std::move(tokens_);
    }

  private:
    [[noreturn]] void fail(std::size_t offset, const std::string& message) const {
        Position p = lines_.at(offset);
        throw ValueError(message,
                         SourceLocation{std::string(lines_.origin().name), p.line, p.column});
    }

    void push_text(std::size_t begin, std::size_t end) {
        Token t;
        t.kind = TokenKind::text;
        t.content = source_.substr(begin, end - begin);
        t.begin = begin;
        t.end = end;
        t.where = lines_.at(begin);
        tokens_.push_back(t);
    }

    void scan_tag(std::size_t at) {
        std::size_t sigil_at = at + delimiters_.open.size();
        char sigil = sigil_at < source_.size() ? source_[sigil_at] : '\0';
        std::string closing = delimiters_.close;
        std::size_t content_begin = sigil_at + 1;
        TokenKind kind = TokenKind::variable;
        switch (sigil) {
            case '#':
                kind = TokenKind::section;
                break;
            case '^':
                kind = TokenKind::inverted;
                break;
            case '/':
                kind = TokenKind::close;
                break;
            case '>':
                kind = TokenKind::partial;
                break;
            case '<':
                kind = TokenKind::parent;
                break;
            case '$':
                kind = TokenKind::block;
                break;
            case '!':
                kind = TokenKind::comment;
                break;
            case '&':
                kind = TokenKind::unescaped;
                break;
            case '{':
                kind = TokenKind::unescaped;
                closing = "}" + delimiters_.close;
                break;
            case '=':
                kind = TokenKind::delimiters;
                closing = "=" + delimiters_.close;
                break;
            default:
                content_begin = sigil_at;
                break;
        }
        std::size_t close_at = source_.find(closing, std::min(content_begin, source_.size()));
        if (close_at == std::string_view::npos) {
            fail(at,
                 "unclosed tag '" + tag_excerpt(source_, at) + "': no '" + closing + "' follows");
        }
        Token t;
        t.kind = kind;
        t.begin = at;
        t.end = close_at + closing.size();
        t.where = lines_.at(at);
        t.delimiters = delimiters_;
        std::string_view raw = source_.substr(content_begin, close_at - content_begin);
        t.content = kind == TokenKind::comment ? raw : trim(raw);
        if (kind == TokenKind::delimiters) change_delimiters(t);
        tokens_.push_back(t);
        pos_ = t.end;
    }

    // {{=<% %>=}}: two delimiters separated by whitespace, neither containing '=' or whitespace.
    void change_delimiters(const Token& t) {
        std::string_view c = t.content;
        std::size_t gap = 0;
        while (gap < c.size() && !is_space(c[gap])) ++gap;
        std::string_view open = c.substr(0, gap);
        std::string_view close = trim(c.substr(gap));
        auto bad = [](std::string_view d) {
            return d.empty() || d.find('=') != std::string_view::npos ||
                   std::any_of(d.begin(), d.end(), is_space);
        };
        if (bad(open) || bad(close)) {
            fail(
                t.begin,
                "bad delimiter change '" + std::string(source_.substr(t.begin, t.end - t.begin)) +
                    "': expected two delimiters separated by whitespace, neither containing '=' or "
                    "whitespace");
        }
        delimiters_ = Delimiters{std::string(open), std::string(close)};
    }

    std::string_view source_;
    Delimiters delimiters_;
    const LineIndex& lines_;
    std::size_t pos_ = 0;
    std::vector<Token> tokens_;
};

bool can_stand_alone(TokenKind k) {
    return k != TokenKind::text && k != TokenKind::variable && k != TokenKind::unescaped;
}

// A line whose only content is tags that print nothing by themselves (sections, closes,
// comments, partials, parents, blocks, delimiter changes) and blanks is "standalone": its
// blanks and its newline are removed, and its leading blanks become a partial's indentation.
// The spec's cases have one tag per such line; like mustache.js and mstch, a line of several
// such tags counts too (the inheritance module needs {{<parent}}{{$block}} lines). One exception,
// from the inheritance module: a line that is exactly {{$block}}{{/block}} keeps its newline.
class StandaloneMarker {
  public:
    StandaloneMarker(std::vector<Token>& tokens, std::string_view source)
        : tokens_(tokens), source_(source), lead_(tokens.size(), 0), trail_(tokens.size(), 0) {}

    void run() {
        for (std::size_t i = 0; i < tokens_.size(); ++i) {
            Token& t = tokens_[i];
            if (t.kind != TokenKind::text) {
                t.consumed_begin = t.begin;
                t.consumed_end = t.end;
                line_.tags.push_back(i);
                if (!can_stand_alone(t.kind)) line_.blank = false;
                continue;
            }
            std::string_view text = t.content;
            std::size_t nl = text.find('\n');
            if (nl == std::string_view::npos) {
                if (!all_blank(text)) line_.blank = false;
                line_.whole_texts.push_back(i);
                continue;
            }
            std::size_t head = (nl > 0 && text[nl - 1] == '\r') ? nl - 1 : nl;
            if (!all_blank(text.substr(0, head))) line_.blank = false;
            finish_line(Ending{i, head, nl + 1, t.begin + nl + 1});
            std::size_t last = text.rfind('\n');
            line_ = Line{};
            line_.start = t.begin + last + 1;
            line_.tail_text = i;
            if (!all_blank(text.substr(last + 1))) line_.blank = false;
        }
        finish_line(std::nullopt);
        apply();
    }

  private:
    struct Line {
        std::size_t start = 0;  // source offset where the line begins
        std::vector<std::size_t> tags;
        std::vector<std::size_t> whole_texts;  // text tokens entirely on this line
        std::optional<std::size_t> tail_text;  // the text token whose end begins this line
        bool blank = true;                     // no text besides blanks, no printing tag
    };
    struct Ending {
        std::size_t text;       // the text token holding the newline
        std::size_t blanks;     // blanks before the newline
        std::size_t through;    // up to and including the newline
        std::size_t next_line;  // source offset after the newline
    };

    bool is_block_pair(const Line& line) const {
        if (line.tags.size() != 2) return false;
        const Token& a = tokens_[line.tags[0]];
        const Token& b = tokens_[line.tags[1]];
        return a.kind == TokenKind::block && b.kind == TokenKind::close && a.content == b.content;
    }

    void finish_line(const std::optional<Ending>& ending) {
        const Line& line = line_;
        if (line.tags.empty() || !line.blank) return;
        bool keep_newline = is_block_pair(line);
        std::size_t first_begin = tokens_[line.tags.front()].begin;
        std::string_view indent = source_.substr(line.start, first_begin - line.start);
        if (line.tail_text)
            trail_[*line.tail_text] = tokens_[*line.tail_text].content.size() -
                                      (tokens_[*line.tail_text].content.rfind('\n') + 1);
        for (std::size_t w : line.whole_texts) lead_[w] = tokens_[w].content.size();
        std::size_t line_end = source_.size();
        if (ending) {
            lead_[ending->text] = keep_newline ? ending->blanks : ending->through;
            line_end =
                keep_newline ? tokens_[ending->text].begin + ending->blanks : ending->next_line;
        }
        for (std::size_t i : line.tags) {
            tokens_[i].standalone = true;
            tokens_[i].line_indent = indent;
        }
        tokens_[line.tags.front()].consumed_begin = line.start;
        tokens_[line.tags.back()].consumed_end = line_end;
    }

    void apply() {
        for (std::size_t i = 0; i < tokens_.size(); ++i) {
            Token& t = tokens_[i];
            if (t.kind != TokenKind::text) continue;
            std::size_t cut = std::min(t.content.size(), lead_[i] + trail_[i]);
            t.content =
                t.content.substr(std::min(lead_[i], t.content.size()), t.content.size() - cut);
        }
        std::erase_if(
            tokens_, [](const Token& t) { return t.kind == TokenKind::text && t.content.empty(); });
    }

    std::vector<Token>& tokens_;
    std::string_view source_;
    std::vector<std::size_t> lead_;   // text tokens: leading bytes removed with the line before
    std::vector<std::size_t> trail_;  // text tokens: trailing blanks removed with the line after
    Line line_;
};

}  // namespace

std::vector<Token> lex(std::string_view source, const Delimiters& start, const LineIndex& lines) {
    std::vector<Token> tokens = Scanner(source, start, lines).run();
    StandaloneMarker(tokens, source).run();
    return tokens;
}

}  // namespace cmfpipe::mustache
