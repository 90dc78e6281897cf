#pragma once
// A Prapti markdown conversation (docs/prapti.md) as `cmfpipe run FILE.md` runs it: the prapti
// parser plugin reads the document (its sections, their configuration lines, %include), and the
// configuration becomes the request's model and options, as a .prompty's frontmatter does.
//
// Configuration keys (also written `responders.default.KEY`, Prapti's own spelling):
//   model -> model.id          temperature -> options.temperature   top_p -> options.topP
//   max_tokens -> options.maxOutputTokens   stop, stop_sequence -> options.stopSequences
//   n -> options.additionalProperties.n     seed -> options.seed
// Later lines win. `plugins.load` and `responder.new` are accepted and noted as not needed
// (cmfpipe loads its plugins itself, --to picks the adapter); `config_root` (true or false) ends
// the search for configuration files. Any other key or action, a value of the wrong type, and a
// section whose role no model takes (`@prompt`) are ValueErrors at file:line:col.
//
// Configuration files, as Prapti reads them: `.prapticonfig.md` in the document's folder and in
// each parent folder up to the first that sets `config_root = true`, read from the top down
// before the document. They are Prapti documents: their messages are sent before the document's.
// (Prapti's user file in the home folder is not read.)
#include <filesystem>
#include <string>
#include <vector>

#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/core/prompty/agent.hpp"
#include "cmfpipe/core/registry.hpp"
#include "cmfpipe/core/tracing.hpp"
#include "cmfpipe/errors.hpp"

namespace cmfpipe::prapti {

// A line cmfpipe read and did not need, for the user to know.
struct Notice {
    SourceLocation at;
    std::string message;
};

struct LoadOptions {
    // Folders %include may read below besides the document's own (cmfpipe: --allow-root).
    std::vector<std::filesystem::path> allowed_roots;
    // Read the .prapticonfig.md files (cmfpipe: --no-default-config turns it off).
    bool config_files = true;
    tracing::TraceContext trace;
};

struct Document {
    // name: the file's stem; source: the file; model: what the configuration set; the template's
    // parser kind "prapti" (there is no renderer: a Prapti document is not a template).
    prompty::Agent agent;
    std::vector<cmf::Message> conversation;           // what is sent, in order
    std::vector<std::filesystem::path> config_files;  // read before the document, in order
    std::vector<Notice> notices;
};

// Reads and parses `file` (the registry's "prapti" parser) in a `load` span.
Document load(const Registry& registry, const std::filesystem::path& file,
              const LoadOptions& options = {});

}  // namespace cmfpipe::prapti
