#pragma once
// Shared by the chat_template tests: the bundled adapter (loaded as the CLI loads it; it obtains
// the bundled jinja2 renderer from the host), the corpus templates and the test's conversations.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/json_parse.hpp"
#include "support/corpus.hpp"
#include "support/registry.hpp"

namespace cmfpipe::testing {

inline std::shared_ptr<Adapter> chat_template_adapter() {
    return bundled_plugins().make_adapter("chat_template");
}

inline const std::filesystem::path chat_template_test_dir =
    std::filesystem::path(CMFPIPE_SOURCE_DIR) / "tests" / "chat_template";

inline std::string read_bytes(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) throw Error("cannot read " + p.string());
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A corpus template's text (the test is skipped, loudly, where the corpus is absent).
inline std::string corpus_template(const std::string& name) {
    return read_bytes(require_corpus("chat-templates") / "templates" / (name + ".jinja"));
}

// conversations.json: [{name, about, cmf: {messages, agent, options}, hf: {...}}].
inline const Json& conversations() {
    static const Json all =
        parse_json(read_bytes(chat_template_test_dir / "conversations.json"), "conversations.json");
    return all;
}

// The options of a to_wire call over `template_text`: the case's, the template, and the time the
// oracle rendered with.
inline Json prompt_options(const Json& options, const std::string& template_text,
                           const std::string& template_name) {
    Json out = options;
    out["template"] = template_text;
    out["template_name"] = template_name;
    out["now"] = "2024-07-26T00:00:00";
    return out;
}

}  // namespace cmfpipe::testing
