// cmfpipe views: the OPA input of every view of every message, as a processor with the given
// capabilities would see it. No --capabilities (or an empty list) grants none.
#include <iostream>

#include "cmfpipe/cmf/capabilities.hpp"
#include "cmfpipe/cmf/view.hpp"
#include "cmfpipe/core/pipeline/messages_file.hpp"
#include "command.hpp"

namespace cmfpipe::cli {
namespace {

// "a,b,c" -> names; empty items are refused (a stray comma is a typo, not "none").
std::vector<std::string> split_names(const std::string& list) {
    std::vector<std::string> names;
    if (list.empty()) return names;
    std::size_t start = 0;
    while (true) {
        auto comma = list.find(',', start);
        std::string name =
            list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (name.empty()) throw UsageError("--capabilities: empty name in '" + list + "'");
        names.push_back(std::move(name));
        if (comma == std::string::npos) return names;
        start = comma + 1;
    }
}

int run_views(const Arguments& args) {
    if (args.positionals().size() != 1)
        throw UsageError("expected one MESSAGES.json file (or - for stdin)");
    const std::string hook = args.value("hook").value_or("");
    if (!hook.empty() && hook != "llm_input" && hook != "llm_output") {
        throw UsageError("unknown hook '" + hook + "' (known: llm_input, llm_output)");
    }
    cmf::CapabilitySet caps;
    for (const auto& name : split_names(args.value("capabilities").value_or(""))) {
        if (!cmf::capability_from_string(name)) {
            throw UsageError("unknown capability '" + name +
                             "' (known: " + std::string(cmf::capability_names()) + ")");
        }
        caps.add(*cmf::capability_from_string(name));
    }
    Json out = Json::array();
    for (const auto& message : pipeline::load_messages_file(args.positionals()[0])) {
        for (const auto& view : cmf::iter_views(message, caps, hook)) {
            out.push_back(view.to_opa_input());
        }
    }
    std::cout << out.dump(2) << "\n";
    return std::cout ? 0 : 1;
}

const CommandRegistration views_registration{
    {"views",
     "print the OPA input of every message view, seen with exactly the capabilities listed",
     "views MESSAGES.json [--hook HOOK] [--capabilities a,b,...]",
     {{"hook", "HOOK", "llm_input or llm_output, reported in each view"},
      {"capabilities", "a,b,...", "capabilities granted (default and empty: none)"}},
     1,
     run_views}};

}  // namespace
}  // namespace cmfpipe::cli
