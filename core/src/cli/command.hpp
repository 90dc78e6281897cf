#pragma once
// The CLI's subcommands. Each lives in its own file and registers itself with a static
// CommandRegistration, so adding a subcommand touches no shared table.
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cmfpipe/core/registry.hpp"

namespace cmfpipe::cli {

struct OptionSpec {
    std::string name;        // without the leading "--"
    std::string value_name;  // empty: a flag without a value
    std::string help;
    bool repeatable = false;
};

// Wrong use of the command line: printed with the command's usage, exit code 2.
class UsageError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

class Arguments {
  public:
    bool flag(const std::string& name) const { return options_.count(name) > 0; }
    std::optional<std::string> value(const std::string& name) const;
    std::string required(const std::string& name) const;  // UsageError when absent
    std::vector<std::string> values(const std::string& name) const;
    const std::vector<std::string>& positionals() const { return positionals_; }

    static Arguments parse(const std::vector<std::string>& argv,
                           const std::vector<OptionSpec>& specs);

  private:
    std::map<std::string, std::vector<std::string>> options_;
    std::vector<std::string> positionals_;
};

struct Command {
    std::string name;
    std::string summary;  // one line for `cmfpipe --help`
    std::string usage;    // e.g. "render --format KIND --template FILE [--vars FILE.json]"
    std::vector<OptionSpec> options;
    std::size_t max_positionals = 0;
    std::function<int(const Arguments&)> run;  // returns the exit code
};

const std::vector<Command>& commands();
const Command* find_command(const std::string& name);
std::string help_text(const Command& command);

struct CommandRegistration {
    explicit CommandRegistration(Command command);
};

// The `--option KEY=JSON` pairs as one object. A value that is not JSON is taken as a string;
// JSON deeper than the limits policy allows is LimitExceeded naming the option.
Json option_pairs(const Arguments& args, const std::string& name = "option");

// Every command takes `--limit KEY=N` (repeatable): the input limits policy (cmfpipe/limits.hpp)
// for this run, set before anything is read.
void apply_limit_options(const Arguments& args);

// --plugin-path DIR (repeatable) and --strict, for every command that loads plugins.
std::vector<OptionSpec> registry_options();
Registry load_registry(const Arguments& args, std::vector<std::filesystem::path> extra_dirs = {});

}  // namespace cmfpipe::cli
