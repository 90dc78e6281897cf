#include <iostream>

#include "command.hpp"

namespace cmfpipe::cli {
namespace {

int run_plugins(const Arguments& args) {
    Registry registry = load_registry(args);
    if (args.flag("json")) {
        std::cout << registry_listing(registry).dump(2) << "\n";
        return 0;
    }
    const auto kinds = registry.list();
    std::size_t widths[4] = {4, 4, 6, 7};
    for (const auto& k : kinds) {
        widths[0] = std::max(widths[0], to_string(k.type).size());
        widths[1] = std::max(widths[1], k.kind.size());
        widths[2] = std::max(widths[2], k.origin.name.size());
        widths[3] = std::max(widths[3], k.origin.version.size());
    }
    auto row = [&](std::string_view a, std::string_view b, std::string_view c, std::string_view d,
                   std::string_view e) {
        std::string line;
        for (auto [cell, width] :
             {std::pair{a, widths[0]}, {b, widths[1]}, {c, widths[2]}, {d, widths[3]}}) {
            line += cell;
            line.append(width + 2 - cell.size(), ' ');
        }
        std::cout << line << e << "\n";
    };
    row("TYPE", "KIND", "PLUGIN", "VERSION", "FILE");
    for (const auto& k : kinds) {
        row(to_string(k.type), k.kind, k.origin.name, k.origin.version,
            k.origin.file.empty() ? "(built-in)" : k.origin.file.string());
    }
    return 0;
}

std::vector<OptionSpec> plugins_options() {
    auto options = registry_options();
    options.push_back({"json", "", "print JSON: {plugins: [...], problems: [...]}"});
    return options;
}

const CommandRegistration plugins_registration{
    {"plugins", "list every plugin kind the registry discovered, with its plugin and file",
     "plugins [--plugin-path DIR] [--strict] [--json]", plugins_options(), 0, run_plugins}};

}  // namespace
}  // namespace cmfpipe::cli
