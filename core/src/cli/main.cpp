// cmfpipe: the command-line host. Errors go to stderr; exit 1 for a failure, 2 for wrong usage.
#include <cstdio>
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

int run_command_line(std::vector<std::string> words) {
    using namespace cmfpipe::cli;
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

// Output that did not reach its destination (a full disk, a closed pipe) is a failure, whatever
// the command: checked here, once, after everything was written.
int check_standard_output(int exit_code) {
    std::cout.flush();
    const bool failed = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout);
    if (!failed) return exit_code;
    std::cerr << "cmfpipe: error: could not write standard output\n";
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    return check_standard_output(run_command_line(std::vector<std::string>(argv + 1, argv + argc)));
}
