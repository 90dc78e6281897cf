// parser kind "prapti": a Prapti markdown conversation -> CMF messages (docs/prapti.md).
// adapter kind "prapti": CMF messages -> Prapti markdown (document_writer.hpp), and a Prapti text
// back to its conversation.
//
// Options (per call, over the factory's config):
//   template_name  string, names the text in error locations (default "<prapti>")
//   document       bool, default false: every section with its configuration
//                  (sections_to_cmf.hpp) instead of the conversation alone
//   file           string, the document's path: %include paths are relative to the including
//                  file's folder and must stay in the document's folder; absent, %include is an
//                  error (the parser reads no file unless its host says which document it reads)
//   allowed_roots  array of strings, more folders %include may read below
//   strict         accepted and ignored (a .prompty host passes it; Prapti has no render nonce)
#include <memory>
#include <string>

#include "cmfpipe/json_reader.hpp"
#include "cmfpipe/limits.hpp"
#include "cmfpipe/plugin.hpp"
#include "cmfpipe/utf8.hpp"
#include "document_scanner.hpp"
#include "document_writer.hpp"
#include "sections_to_cmf.hpp"

namespace cmfpipe::prapti {
namespace {

class PraptiParser final : public Parser {
  public:
    explicit PraptiParser(Json config) : config_(std::move(config)) {}

    std::vector<cmf::Message> parse(std::string_view text, const Json& call_options,
                                    const RequestContext&) const override {
        Json merged = config_.is_object() ? config_ : Json::object();
        if (call_options.is_object()) merged.update(call_options);
        const JsonReader options("prapti parser options", merged);
        options.only_fields({"template_name", "document", "file", "allowed_roots", "strict"});
        const std::string name = options.string_or("template_name", "<prapti>");
        check_input_size(text.size(), name);
        check_utf8(text, name);
        std::vector<std::filesystem::path> roots;
        for (const std::string& root : options.strings_or_empty("allowed_roots"))
            roots.emplace_back(root);
        Includes includes(options.string_or("file", ""), name, roots);
        const std::vector<Section> sections = scan_document(text, includes);
        return options.boolean_or("document", false) ? document(sections) : conversation(sections);
    }

  private:
    Json config_;
};

// Options of to_wire: after (string: the document the text will be appended to), next_user
// (bool: end with an empty `### @user:` heading). from_wire: source or template_name (a name for
// error locations). The agent is not used: a document's configuration is its author's.
class PraptiAdapter final : public Adapter {
  public:
    Json to_wire(const std::vector<cmf::Message>& messages, const Json&,
                 const Json& options) const override {
        const Json given = options.is_object() ? options : Json::object();
        const JsonReader reader("prapti adapter options", given);
        reader.only_fields({"after", "next_user"});
        WriteOptions write;
        const std::string after = reader.string_or("after", "");
        write.after = after;
        write.next_user = reader.boolean_or("next_user", false);
        return Json(write_messages(messages, write));
    }

    std::vector<cmf::Message> from_wire(std::string_view text, const Json& options) const override {
        const Json given = options.is_object() ? options : Json::object();
        const JsonReader reader("prapti adapter options", given);
        reader.only_fields({"source", "template_name"});
        const std::string name =
            reader.string_or("template_name", reader.string_or("source", "<prapti>"));
        return PraptiParser(Json::object()).parse(text, {{"template_name", name}}, {});
    }
};

void register_kinds(Registrar& registrar) {
    registrar.add_parser("prapti",
                         [](const Json& config) { return std::make_unique<PraptiParser>(config); });
    registrar.add_adapter("prapti", [](const Json&) { return std::make_unique<PraptiAdapter>(); });
}

}  // namespace
}  // namespace cmfpipe::prapti

CMFPIPE_PLUGIN(prapti, "0.1.0", cmfpipe::prapti::register_kinds)
