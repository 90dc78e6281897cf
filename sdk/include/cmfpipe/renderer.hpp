#pragma once
#include <string>
#include <string_view>

#include "cmfpipe/json.hpp"

namespace cmfpipe {

// Turns a template and its inputs into text. Implementations must be safe to call from
// many threads at once on one instance (render is const; caches are internally locked).
//
// The contract with the host:
// - Text outside the renderer's own syntax should come out as it went in. A renderer may
//   transform it (upper-case everything, say), but it must keep author role-marker tokens intact.
// - Author role-marker tokens: in strict mode the host takes every role marker the author wrote
//   (`system:`, which then carries the request's nonce) out of the template and leaves a token in
//   its place, `author_marker_token_open` + decimal index + `author_marker_token_close`. After
//   render it puts the markers back. So a renderer never sees a marker or the nonce, and the text
//   it receives is the same for every request of a template (cache it). The token has no letters:
//   case mapping is safe. A token the renderer changed or dropped half of is a ValueError, and an
//   input that carries the opening character is refused before render is called.
// - Rich inputs (thread, image, file, audio) arrive as string tokens (request.hpp); output them
//   where the template places them.
class Renderer {
  public:
    virtual ~Renderer();
    // template_text: the template source. inputs: a JSON object of variables.
    // options: renderer-specific settings (profile, template name for errors, limits, ...).
    // Throws ValueError for syntax and runtime errors, LimitExceeded for sandbox bounds.
    virtual std::string render(std::string_view template_text, const Json& inputs,
                               const Json& options) const = 0;
};

// U+E003 and U+E004 (private use) in UTF-8: the brackets of an author role-marker token.
inline constexpr std::string_view author_marker_token_open = "\xee\x80\x83";
inline constexpr std::string_view author_marker_token_close = "\xee\x80\x84";

}  // namespace cmfpipe
