#pragma once
// Private to the registry: the table of factories and the libraries that back them.
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <boost/dll/shared_library.hpp>

#include "cmfpipe/core/registry.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/plugin.hpp"

namespace cmfpipe {

using AnyFactory = std::variant<RendererFactory, ParserFactory, AdapterFactory, ProcessorFactory>;

struct FactoryEntry {
    // Declared first so it is destroyed last: the factory's code lives in this library.
    std::shared_ptr<boost::dll::shared_library> library;
    PluginOrigin origin;
    AnyFactory factory;
};

struct Registry::Impl {
    std::map<std::pair<PluginType, std::string>, FactoryEntry, std::less<>> entries;
    std::vector<LoadProblem> problems;
    std::set<std::filesystem::path> loaded_files;  // canonical paths, so a file loads once

    // Runs a descriptor's registration into a staging area and commits it only when it
    // finished without throwing and claimed no kind that is already taken.
    bool register_plugin(const cmfpipe_plugin_descriptor& descriptor,
                         std::shared_ptr<boost::dll::shared_library> library,
                         const std::filesystem::path& file);
};

}  // namespace cmfpipe
