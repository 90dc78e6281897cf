// `cmfpipe parse-output --from KIND [FILE|-]`: a model's completion back to CMF through any
// adapter kind (registry.make_adapter(KIND)->from_wire), printed as the CMF JSON message list.
#include <iostream>

#include "cmfpipe/cmf/json.hpp"
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

int run_parse_output(const Arguments& args) {
    const std::string kind = args.required("from");
    Registry registry = load_registry(args);
    // The adapter is resolved first, so an unknown kind is reported before any input is read.
    auto adapter = registry.make_adapter(kind);

    const std::string file = args.positionals().empty() ? "-" : args.positionals()[0];
    Json options = Json::object();
    options["source"] = file == "-" ? "<stdin>" : file;
    options.update(option_pairs(args));
    const std::string completion = read_input(file);
    MessageListPrinter print;
    adapter->from_wire_each(completion, options, [&](cmf::Message m) { print(m); });
    print.finish();
    std::cout.flush();
    return std::cout ? 0 : 1;
}

std::vector<OptionSpec> parse_output_options() {
    auto options = registry_options();
    options.insert(
        options.begin(),
        {{"from", "KIND", "adapter kind (openai, anthropic, chatml, harmony, ...)"},
         {"option", "KEY=JSON", "an adapter option (e.g. complete=true, role=null)", true}});
    return options;
}

const CommandRegistration registration{
    {"parse-output", "parse a model completion with an adapter; prints the CMF messages as JSON",
     "parse-output --from KIND [--option KEY=JSON]... [FILE|-]", parse_output_options(), 1,
     run_parse_output}};

}  // namespace
}  // namespace cmfpipe::cli
