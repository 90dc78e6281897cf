#pragma once
// Private to the registry: the table of factories and the libraries that back them.
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <boost/dll/shared_library.hpp>

#include "cmfpipe/core/registry.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/host_services.hpp"
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
    // What plugins obtain other kinds through (Registrar::host()). It answers from this Impl,
    // whose address a Registry move keeps, so factories may hold a reference to it.
    std::unique_ptr<HostServices> host;

    Impl();
    ~Impl();

    // What Registry::make_* and the host services make (registry.hpp states the rules).
    std::shared_ptr<Renderer> make_renderer(std::string_view kind, const Json& config) const;
    std::shared_ptr<Parser> make_parser(std::string_view kind, const Json& config) const;
    std::shared_ptr<Adapter> make_adapter(std::string_view kind, const Json& config) const;
    std::shared_ptr<Processor> make_processor(std::string_view kind, const Json& config) const;
    std::vector<std::string> kinds(PluginType type) const;

    // Runs a descriptor's registration into a staging area and commits it only when it
    // finished without throwing and claimed no kind that is already taken.
    bool register_plugin(const cmfpipe_plugin_descriptor& descriptor,
                         std::shared_ptr<boost::dll::shared_library> library,
                         const std::filesystem::path& file);
};

// The host services of a registry (host_services.cpp): each call is impl.make_*, and a processor
// is guarded as well (plugin_guard.hpp), since no pipeline names it for the plugin that asked.
std::unique_ptr<HostServices> make_host_services(const Registry::Impl& impl);

}  // namespace cmfpipe
