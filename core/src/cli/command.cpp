#include "command.hpp"

#include <algorithm>
#include <charconv>
#include <iostream>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/json_parse.hpp"
#include "cmfpipe/limits.hpp"

namespace cmfpipe::cli {

namespace {
std::vector<Command>& table() {
    static std::vector<Command> commands;
    return commands;
}
}  // namespace

CommandRegistration::CommandRegistration(Command command) {
    command.options.push_back(
        {"limit", "KEY=N", "an input limit: max_depth, max_input_bytes, max_yaml_nodes", true});
    command.options.push_back({"help", "", "show this help"});
    auto& all = table();
    all.insert(std::upper_bound(all.begin(), all.end(), command,
                                [](const Command& a, const Command& b) { return a.name < b.name; }),
               std::move(command));
}

const std::vector<Command>& commands() {
    return table();
}

const Command* find_command(const std::string& name) {
    for (const auto& command : table()) {
        if (command.name == name) return &command;
    }
    return nullptr;
}

std::string help_text(const Command& command) {
    std::string out = "usage: cmfpipe " + command.usage + "\n\n" + command.summary + "\n";
    if (!command.options.empty()) out += "\noptions:\n";
    for (const auto& option : command.options) {
        std::string left =
            "  --" + option.name + (option.value_name.empty() ? "" : " " + option.value_name);
        if (left.size() < 28)
            left.resize(28, ' ');
        else
            left += "  ";
        out += left + option.help + (option.repeatable ? " (repeatable)" : "") + "\n";
    }
    return out;
}

std::optional<std::string> Arguments::value(const std::string& name) const {
    auto found = options_.find(name);
    if (found == options_.end() || found->second.empty()) return std::nullopt;
    return found->second.back();
}

std::string Arguments::required(const std::string& name) const {
    auto v = value(name);
    if (!v) throw UsageError("missing required option --" + name);
    return *v;
}

std::vector<std::string> Arguments::values(const std::string& name) const {
    auto found = options_.find(name);
    return found == options_.end() ? std::vector<std::string>{} : found->second;
}

Arguments Arguments::parse(const std::vector<std::string>& argv,
                           const std::vector<OptionSpec>& specs) {
    Arguments args;
    bool only_positionals = false;
    for (std::size_t i = 0; i < argv.size(); ++i) {
        const std::string& word = argv[i];
        if (only_positionals || word.size() < 3 || word.compare(0, 2, "--") != 0) {
            if (word == "--") {
                only_positionals = true;
                continue;
            }
            args.positionals_.push_back(word);
            continue;
        }
        std::string name = word.substr(2);
        std::optional<std::string> inline_value;
        if (auto eq = name.find('='); eq != std::string::npos) {
            inline_value = name.substr(eq + 1);
            name.resize(eq);
        }
        auto spec = std::find_if(specs.begin(), specs.end(),
                                 [&](const OptionSpec& s) { return s.name == name; });
        if (spec == specs.end()) throw UsageError("unknown option --" + name);
        auto& slot = args.options_[name];
        if (!spec->repeatable && !slot.empty())
            throw UsageError("option --" + name + " given twice");
        if (spec->value_name.empty()) {
            if (inline_value) throw UsageError("option --" + name + " takes no value");
            slot.push_back("");
        } else if (inline_value) {
            slot.push_back(*inline_value);
        } else {
            if (i + 1 >= argv.size())
                throw UsageError("option --" + name + " needs a value (" + spec->value_name + ")");
            slot.push_back(argv[++i]);
        }
    }
    return args;
}

Json option_pairs(const Arguments& args, const std::string& name) {
    Json options = Json::object();
    for (const auto& pair : args.values(name)) {
        auto eq = pair.find('=');
        if (eq == std::string::npos)
            throw UsageError("--" + name + " wants KEY=JSON, got '" + pair + "'");
        const std::string key = pair.substr(0, eq);
        const std::string text = pair.substr(eq + 1);
        try {
            options[key] = parse_json(text, "--" + name + " " + key);
        } catch (const LimitExceeded&) {
            throw;
        } catch (const ValueError&) {
            options[key] = text;  // not JSON: the text itself
        }
    }
    return options;
}

void apply_limit_options(const Arguments& args) {
    Json overrides = Json::object();
    for (const auto& pair : args.values("limit")) {
        auto eq = pair.find('=');
        std::int64_t number = 0;
        const char* first = pair.data() + (eq == std::string::npos ? pair.size() : eq + 1);
        const char* last = pair.data() + pair.size();
        auto [end, error] = std::from_chars(first, last, number);
        if (eq == std::string::npos || first == last || error != std::errc() || end != last)
            throw UsageError("--limit wants KEY=N (a whole number), got '" + pair + "'");
        overrides[pair.substr(0, eq)] = number;
    }
    if (!overrides.empty()) set_input_limits(InputLimits::from_json(overrides));
}

std::vector<OptionSpec> registry_options() {
    return {{"plugin-path", "DIR", "also load plugins from DIR (after CMFPIPE_PLUGIN_PATH)", true},
            {"strict", "", "fail when any plugin file cannot be loaded"}};
}

Registry load_registry(const Arguments& args, std::vector<std::filesystem::path> extra_dirs) {
    DiscoveryOptions options;
    for (const auto& dir : args.values("plugin-path")) options.directories.emplace_back(dir);
    for (auto& dir : extra_dirs) options.directories.push_back(std::move(dir));
    options.strict = args.flag("strict");
    Registry registry = Registry::discover(options);
    for (const auto& problem : registry.problems()) {
        std::cerr << "cmfpipe: warning: " << problem.file.string() << ": " << problem.reason
                  << "\n";
    }
    return registry;
}

}  // namespace cmfpipe::cli
