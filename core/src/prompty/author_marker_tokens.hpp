#pragma once
// Strict mode keeps the author's role markers away from the renderer (the contract is in
// sdk renderer.hpp): before render, every line of the prepared template that the parser calls a
// role marker becomes a token (U+E003 <index> U+E004); after render, each token becomes its line
// again, nonce and all. The renderer can neither break a marker nor see the nonce, and the text it
// gets is the same for every request. Private to core/src/prompty.
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/json.hpp"
#include "cmfpipe/parser.hpp"

namespace cmfpipe::prompty::detail {

struct TokenizedTemplate {
    std::string text;                  // what the renderer gets
    std::vector<std::string> markers;  // the marker lines, by token index
};

// `prepared`: the parser's prepare_template output. A template that already holds U+E003 is a
// ValueError (the token would be ambiguous).
TokenizedTemplate tokenize_author_markers(std::string_view prepared, const Parser& parser);

// An input (a string or a key, at any depth) holding U+E003 could forge a token: ValueError
// naming the input, before anything is rendered.
void refuse_marker_tokens_in_inputs(const Json& inputs);

// Each token in `rendered` replaced by its marker line. A token the renderer changed (an unknown
// index, an opening or closing character left alone) is a ValueError naming `renderer_kind`.
std::string restore_author_markers(std::string_view rendered,
                                   const std::vector<std::string>& markers,
                                   const std::string& renderer_kind);

}  // namespace cmfpipe::prompty::detail
