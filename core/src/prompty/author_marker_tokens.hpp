#pragma once
// Strict mode keeps the author's role markers away from the renderer (the contract is in
// sdk renderer.hpp): before render, every line of the template that the parser calls a role
// marker becomes a token (U+E003 <index> U+E004); after render, each token becomes its line again
// as the parser's prepare_template marked it for this request, nonce and all. The renderer can
// neither break a marker nor see the nonce, and the text it gets is the same for every request.
// The tokenized template does not depend on the request either, so it is made once per template
// (StrictTemplates) and each request only marks the marker lines. Private to core/src/prompty.
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cmfpipe/json.hpp"
#include "cmfpipe/parser.hpp"

namespace cmfpipe::prompty::detail {

struct TokenizedTemplate {
    std::string text;                  // what the renderer gets
    std::vector<std::string> markers;  // the marker lines, by token index
    // The template with every line but the marker lines emptied: what prepare_template marks for
    // a request (lines, and so the places its errors name, are those of the template).
    std::string marker_skeleton;
    std::vector<std::size_t> marker_lines;  // 0-based line of each marker, by token index
    // The template holds U+E003 (the token would be ambiguous): a ValueError on every render,
    // after the parser's own errors, as before this was cached.
    bool holds_token_mark = false;
};

// The template as the author wrote it, split by the parser's role-marker grammar.
TokenizedTemplate tokenize_author_markers(std::string_view template_text, const Parser& parser);

// ValueError when the template holds U+E003.
void refuse_token_mark_in_template(const TokenizedTemplate& tokenized);

// The marker lines as the parser marked them for one request: `text` is its prepare_template of
// the marker skeleton, and marker i is text.substr(spans[i].first, spans[i].second) (views into
// one string: no allocation per marker).
struct MarkedMarkers {
    std::string text;
    std::vector<std::pair<std::size_t, std::size_t>> spans;  // offset, length; by token index
    std::string_view operator[](std::size_t index) const {
        return std::string_view(text).substr(spans[index].first, spans[index].second);
    }
    std::size_t size() const { return spans.size(); }
};

// The marker lines of `tokenized` as the parser marks them for `request` (its prepare_template on
// the marker skeleton), by token index. A parser that does not give back one line for each line
// is a ValueError.
MarkedMarkers marked_author_markers(const TokenizedTemplate& tokenized, const Parser& parser,
                                    const Json& parser_options, RequestContext& request);

// Tokenized templates by (parser, template text), made once and shared by the renders of one
// Invokers (render.hpp). Bounded: past `capacity` templates the oldest is dropped. Thread-safe.
class StrictTemplates {
  public:
    static constexpr std::size_t capacity = 64;
    std::shared_ptr<const TokenizedTemplate> get(std::string_view template_text,
                                                 const std::shared_ptr<const Parser>& parser);

  private:
    struct Entry {
        std::shared_ptr<const Parser> parser;  // held, so that its address names only it
        std::string text;
        std::shared_ptr<const TokenizedTemplate> tokenized;
    };
    std::mutex mutex_;
    std::vector<Entry> entries_;  // oldest first
};

// An input (a string or a key, at any depth) holding U+E003 could forge a token: ValueError
// naming the input, before anything is rendered.
void refuse_marker_tokens_in_inputs(const Json& inputs);

// Each token in `rendered` replaced by its marker line, in one pass over the text. A token the
// renderer changed (an unknown index, an opening or closing character left alone) is a
// ValueError naming `renderer_kind`.
std::string restore_author_markers(std::string_view rendered, const MarkedMarkers& markers,
                                   const std::string& renderer_kind);

}  // namespace cmfpipe::prompty::detail
