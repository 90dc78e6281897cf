#pragma once
// CMF messages -> Prapti markdown, the inverse of the parser, so that a model's answer can be
// appended to the conversation it answers (cmfpipe parse-output --append-to):
//
//   ### @_reasoning:          a message's thinking, hidden (read, never sent)
//   ### @assistant/Name:      its text, escaped so it reads back exactly (text_escape.hpp)
//   ### @_tool_call/NAME:     each tool call, hidden: ```json {"id", "arguments"}```
//   ### @_tool_result/NAME:   each tool result (role tool), hidden: ```json {"id", "content"}```
//   ### @user:                with next_user: where the user writes next
//
// A name is `custom.metadata.name` (characters other than letters, digits, `_` and `-` become
// `_`). Bytes that are not UTF-8 become U+FFFD (a document is text). Parts a document has no form
// for (images, audio, files, resources) are a ValueError naming the part.
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/cmf/message.hpp"

namespace cmfpipe::prapti {

struct WriteOptions {
    // The document the text is appended to: the text starts on a line of its own after a blank
    // line, and closes a code fence the document leaves open. The result is read back with it,
    // and a ValueError is raised (nothing to write) unless the document's messages read as
    // before and the new ones as written.
    std::string_view after;
    bool next_user = false;
};

std::string write_messages(const std::vector<cmf::Message>& messages, const WriteOptions& options);

}  // namespace cmfpipe::prapti
