#pragma once
// Text written into a Prapti document so that it reads back as exactly that text (the writer's
// half of document_scanner.hpp). A line that would read as markup, outside a code fence that
// closes, gets an empty HTML comment `<!---->` in front: a message heading, a configuration line,
// a code fence that nothing closes (it would swallow what follows). Every `<!--` outside a code
// span becomes `<<!---->!--`. The comment is a disabled span, so reading drops it and gives the
// line back as it was; a reader of the markdown sees the line, and the comment is invisible.
#include <string>
#include <string_view>

namespace cmfpipe::prapti {

// What reading `text` as a section's body gives when nothing in it is markup: no blank lines at
// its ends, no "\r" ending its last line.
std::string_view readable_text(std::string_view text);

// `text` (already readable_text) escaped as above.
std::string escape_text(std::string_view text);

}  // namespace cmfpipe::prapti
