#pragma once
// A Prapti document cut into sections (docs/prapti.md): one pass over its lines with the state
// that changes how a line reads (inside a code fence, inside an HTML comment).
//
// - `### @role/name:` starts a section; what comes before the first one is the hidden `_head`.
//   `### //@role:` starts a disabled section: dropped whole, its configuration lines unread.
// - `% ...` lines (also `> % ...` in a block quote) are read into the section's settings in
//   document order and removed from its text; `//% ...` lines are removed and ignored.
//   `%include "FILE"` puts the file's text in place of the line (its configuration lines are
//   read too, its headings are text); `%include.code "FILE"` puts it in a code fence whose
//   language is the file's extension, as it is.
// - Inside a code fence every line is text, as written. An HTML comment `<!-- ... -->` is a
//   disabled span: its text is dropped and nothing in it is read (outside code spans; a `<!--`
//   with no `-->` after it is text). A line left with nothing but comments is dropped.
// - A section's text has no blank lines at its start or end, nor the end of its last line.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/errors.hpp"
#include "includes.hpp"
#include "line_syntax.hpp"
#include "setting.hpp"

namespace cmfpipe::prapti {

struct Section {
    std::string role;     // lower case: `@User` is `user`
    std::string name;     // as written; empty when none
    bool hidden = false;  // the role starts with `_`
    SourceLocation at;    // the role in its heading (`_head`: the document's start)
    std::string text;
    std::vector<Setting> settings;
};

enum class ScanMode {
    read,       // configuration lines are read and applied, %include pulls its file in
    structure,  // configuration lines are removed unread (no settings, no file is read)
};

// How the document ends: inside a code fence (a text appended to it would be in the fence).
struct DocumentEnd {
    std::optional<Fence> open_fence;
};

// The sections in order, `_head` first, disabled ones left out. `includes` reads what
// %include names (its document name is the name errors carry). `end`, when given, is set.
std::vector<Section> scan_document(std::string_view text, Includes& includes,
                                   ScanMode mode = ScanMode::read, DocumentEnd* end = nullptr);

}  // namespace cmfpipe::prapti
