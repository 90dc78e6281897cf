// cmfpipe: the command-line host. Errors go to stderr; exit 1 for a failure, 2 for wrong usage.
#include <iostream>

#include "cmfpipe/errors.hpp"
#include "command.hpp"

namespace {

void print_overview(std::ostream& out) {
    out << "usage: cmfpipe <command> [options]\n\ncommands:\n";
    for (const auto& command : cmfpipe::cli::commands()) {
        std::string name = "  " + command.name;
        name.resize(std::max<std::size_t>(name.size() + 2, 18), ' ');
        out << name << command.summary << "\n";
    }
    out << "\n`cmfpipe <command> --help` describes a command.\n";
}

}  // namespace

int main(int argc, char** argv) {
    using namespace cmfpipe::cli;
    std::vector<std::string> words(argv + 1, argv + argc);
    if (words.empty() || words[0] == "--help" || words[0] == "-h" || words[0] == "help") {
        if (words.size() >= 2 && words[0] == "help") {
            if (const Command* command = find_command(words[1])) {
                std::cout << help_text(*command);
                return 0;
            }
        }
        print_overview(words.empty() ? std::cerr : std::cout);
        return words.empty() ? 2 : 0;
    }
    if (words[0] == "--version") words[0] = "version";
    const Command* command = find_command(words[0]);
    if (command == nullptr) {
        std::cerr << "cmfpipe: unknown command '" << words[0] << "'\n\n";
        print_overview(std::cerr);
        return 2;
    }
    words.erase(words.begin());
    try {
        Arguments args = Arguments::parse(words, command->options);
        if (args.flag("help")) {
            std::cout << help_text(*command);
            return 0;
        }
        apply_limit_options(args);
        if (args.positionals().size() > command->max_positionals) {
            throw UsageError("unexpected argument '" +
                             args.positionals()[command->max_positionals] + "'");
        }
        return command->run(args);
    } catch (const UsageError& e) {
        std::cerr << "cmfpipe " << command->name << ": " << e.what() << "\n\n"
                  << help_text(*command);
        return 2;
    } catch (const cmfpipe::Error& e) {
        std::cerr << "cmfpipe: " << e.kind() << ": " << e.what() << "\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "cmfpipe: error: " << e.what() << "\n";
        return 1;
    }
}
