#pragma once
// Sections -> CMF messages, the two ways the parser returns them.
//
// The conversation (the default): the sections a model is sent, in order: not hidden, with one of
// CMF's roles, with some text. A section's name goes where a Prompty role marker's attributes go,
// custom {"metadata": {"name": ...}}, which adapters read (openai: the message's `name`). A role
// that is neither hidden nor CMF's (`@prompt`) is a ValueError at its heading.
//
// The document (option "document": true): every section that is not disabled, `_head` first,
// each with custom.prapti = {role, send, file, line, column, configuration: [settings]}; a
// section that is not sent has the CMF role `user` and means nothing by it. This is what a host
// reads to apply the configuration (cmfpipe run FILE.md) and to say why a section was not sent.
#include <vector>

#include "cmfpipe/cmf/message.hpp"
#include "document_scanner.hpp"

namespace cmfpipe::prapti {

std::vector<cmf::Message> conversation(const std::vector<Section>& sections);
std::vector<cmf::Message> document(const std::vector<Section>& sections);

}  // namespace cmfpipe::prapti
