#pragma once
// The one Registry::discover fixture of the test suite. CMFPIPE_PLUGIN_PATH is never read, so a
// developer's environment cannot change what a test loads.
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "cmfpipe/core/registry.hpp"

namespace cmfpipe::testing {

// The plugins of `directories`, then the bundled ones when `bundled`. `strict` makes any load
// problem an InvokerError (a test of its own plugins wants that; the other bundled plugins'
// problems are not a test's to judge).
inline Registry discover_plugins(std::vector<std::filesystem::path> directories, bool bundled,
                                 bool strict) {
    DiscoveryOptions options;
    options.directories = std::move(directories);
    options.use_environment = false;
    options.use_default_directory = bundled;
    options.strict = strict;
    return Registry::discover(options);
}

// The bundled plugins, as the CLI finds them (build/lib/cmfpipe/plugins), discovered once per
// test executable and shared; a registry is read-only after discovery, so threads may share it.
inline const Registry& bundled_plugins() {
    static const Registry registry = discover_plugins({}, true, false);
    return registry;
}

// One adapter of the bundled plugins (openai, anthropic, ...), made once per kind and test
// executable and shared, as the registry is.
inline const Adapter& bundled_adapter(const std::string& kind) {
    static std::mutex mutex;
    static std::map<std::string, std::shared_ptr<Adapter>> made;
    std::lock_guard lock(mutex);
    std::shared_ptr<Adapter>& adapter = made[kind];
    if (!adapter) adapter = bundled_plugins().make_adapter(kind);
    return *adapter;
}

}  // namespace cmfpipe::testing
