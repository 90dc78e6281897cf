// `cmfpipe parse-output --from KIND [FILE|-]`: a model's completion back to CMF through any
// adapter kind (registry.make_adapter(KIND)->from_wire), printed as the CMF JSON message list.
// With --append-to FILE.md the messages are also appended to a Prapti conversation, written by
// the "prapti" adapter (which checks that the document still reads as before), in one step.
#include <filesystem>
#include <iostream>
#include <optional>

#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/core/file_stamp.hpp"
#include "cmfpipe/core/files.hpp"
#include "cmfpipe/errors.hpp"
#include "command.hpp"

namespace cmfpipe::cli {
namespace {

// Prints the CMF JSON message list as messages_to_json(...).dump(2) spells it, one message at a
// time as the adapter hands it over: a long completion never holds its whole JSON in memory.
class MessageListPrinter {
  public:
    void operator()(const cmf::Message& message) {
        // Model output may hold invalid UTF-8: print it with U+FFFD rather than fail.
        std::string text =
            cmf::message_to_json(message).dump(2, ' ', false, Json::error_handler_t::replace);
        std::cout << (count_++ == 0 ? "[\n  " : ",\n  ");
        std::size_t from = 0;
        for (std::size_t nl; (nl = text.find('\n', from)) != std::string::npos; from = nl + 1)
            std::cout.write(text.data() + from, nl + 1 - from) << "  ";  // one level deeper
        std::cout.write(text.data() + from, text.size() - from);
    }
    void finish() { std::cout << (count_ == 0 ? "[]\n" : "\n]\n"); }

  private:
    std::size_t count_ = 0;
};

// The document's stamp (file_stamp.hpp), to see that nobody wrote it while we did.
FileStamp document_stamp(const std::string& file) {
    if (std::optional<FileStamp> stamp = stamp_of(file)) return *stamp;
    std::error_code ec;
    (void)std::filesystem::file_size(file, ec);  // why there is none, in the system's words
    throw ValueError("cannot append: " + (ec ? ec.message() : std::string("not a regular file")),
                     {file});
}

// The messages as a Prapti `### @assistant:` section (and what else they hold), then an empty
// `### @user:` for the next turn, appended to `file`: all of it or, on any error, nothing.
void append_to_document(const Adapter& prapti, const std::vector<cmf::Message>& messages,
                        const std::string& file) {
    if (messages.empty()) throw ValueError("the completion holds no message to append", {file});
    const FileStamp before = document_stamp(file);
    const std::string document = read_text_file(file);
    const Json appended =
        prapti.to_wire(messages, Json::object(), {{"after", document}, {"next_user", true}});
    if (document_stamp(file) != before)
        throw ValueError("changed while the answer was being appended; nothing was written",
                         {file});
    replace_file(file, document + appended.get<std::string>());
}

int run_parse_output(const Arguments& args) {
    const std::string kind = args.required("from");
    Registry registry = load_registry(args);
    // The adapter is resolved first, so an unknown kind is reported before any input is read.
    auto adapter = registry.make_adapter(kind);
    const std::optional<std::string> append_to = args.value("append-to");
    std::shared_ptr<Adapter> prapti;
    if (append_to) prapti = registry.make_adapter("prapti");

    const std::string file = args.positionals().empty() ? "-" : args.positionals()[0];
    Json options = Json::object();
    options["source"] = file == "-" ? "<stdin>" : file;
    options.update(option_pairs(args));
    // --template and --prompt: files whose text becomes the options `template` (named by the
    // file in the adapter's errors) and `prompt` (what the completion continues), as chat_template
    // takes them.
    if (auto template_file = args.value("template")) {
        options["template"] = read_text_file(*template_file);
        options["template_name"] = *template_file;
    }
    if (auto prompt_file = args.value("prompt")) options["prompt"] = read_text_file(*prompt_file);
    const std::string completion = read_input(file);
    MessageListPrinter print;
    if (append_to) {
        const std::vector<cmf::Message> messages = adapter->from_wire(completion, options);
        append_to_document(*prapti, messages, *append_to);
        for (const cmf::Message& message : messages) print(message);
    } else {
        adapter->from_wire_each(completion, options, [&](cmf::Message m) { print(m); });
    }
    print.finish();
    std::cout.flush();
    return std::cout ? 0 : 1;
}

std::vector<OptionSpec> parse_output_options() {
    auto options = registry_options();
    options.insert(
        options.begin(),
        {{"from", "KIND", "adapter kind (openai, anthropic, chatml, harmony, ...)"},
         {"option", "KEY=JSON", "an adapter option (e.g. complete=true, role=null)", true},
         {"template", "FILE.jinja",
          "the chat template of --from chat_template (its text becomes the adapter option "
          "'template')"},
         {"prompt", "FILE",
          "the prompt the completion continues (--from chat_template: what its end leaves open, "
          "an opened reasoning block or a message being continued, is read from it)"},
         {"append-to", "FILE.md",
          "also append the messages to a Prapti conversation (### @assistant:, then ### @user:), "
          "in one step"}});
    return options;
}

const CommandRegistration parse_output_registration{
    {"parse-output", "parse a model completion with an adapter; prints the CMF messages as JSON",
     "parse-output --from KIND [--template FILE.jinja] [--prompt FILE] [--option KEY=JSON]... "
     "[--append-to FILE.md] [FILE|-]",
     parse_output_options(), 1, run_parse_output}};

}  // namespace
}  // namespace cmfpipe::cli
