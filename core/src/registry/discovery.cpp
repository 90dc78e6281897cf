// Finding plugin files and loading them with Boost.DLL.
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <system_error>

#include <boost/dll/runtime_symbol_info.hpp>

#include "registry_impl.hpp"

namespace cmfpipe {

namespace fs = std::filesystem;

fs::path Registry::default_plugin_directory() {
    // The location of libcmfpipe.so itself, so an embedding host finds the bundled plugins
    // as well as the cmfpipe executable, in a build tree and in an installed tree alike.
    std::error_code ec;
    fs::path library = boost::dll::this_line_location(ec);
    if (ec) return {};
    return library.parent_path() / "cmfpipe" / "plugins";
}

std::vector<fs::path> Registry::environment_directories() {
    std::vector<fs::path> out;
    const char* value = std::getenv("CMFPIPE_PLUGIN_PATH");
    if (value == nullptr) return out;
    std::string_view rest(value);
    while (!rest.empty()) {
        auto colon = rest.find(':');
        auto piece = rest.substr(0, colon);
        if (!piece.empty()) out.emplace_back(std::string(piece));
        if (colon == std::string_view::npos) break;
        rest.remove_prefix(colon + 1);
    }
    return out;
}

namespace {

// Boost.DLL clears dlerror(); on the (rare) failure path we ask the loader once more for its
// reason.
std::string loader_reason(const fs::path& file) {
    dlerror();
    void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) {
        dlclose(handle);
        return "the dynamic loader refused it";
    }
    const char* reason = dlerror();
    return reason ? reason : "the dynamic loader refused it";
}

}  // namespace

bool Registry::load_file(const fs::path& file) {
    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(fs::absolute(file, ec), ec);
    if (ec) canonical = file;
    if (impl_->loaded_files.count(canonical)) return true;  // listed twice (e.g. env and default)

    auto library = std::make_shared<boost::dll::shared_library>();
    boost::dll::fs::error_code load_error;
    library->load(canonical, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local,
                  load_error);
    if (load_error) {
        impl_->problems.push_back({file, "cannot load: " + loader_reason(canonical)});
        return false;
    }
    if (!library->has(CMFPIPE_PLUGIN_ENTRY)) {
        impl_->problems.push_back({file, "not a cmfpipe plugin: no '" CMFPIPE_PLUGIN_ENTRY
                                         "' entry point (CMFPIPE_PLUGIN)"});
        return false;
    }
    using Entry = const cmfpipe_plugin_descriptor*();
    const cmfpipe_plugin_descriptor* descriptor = nullptr;
    try {
        descriptor = library->get_alias<Entry>(CMFPIPE_PLUGIN_ENTRY)();
    } catch (const std::exception& e) {
        impl_->problems.push_back({file, std::string("entry point failed: ") + e.what()});
        return false;
    }
    if (descriptor == nullptr) {
        impl_->problems.push_back({file, "entry point returned no descriptor"});
        return false;
    }
    impl_->loaded_files.insert(canonical);
    return impl_->register_plugin(*descriptor, std::move(library), file);
}

void Registry::load_directory(const fs::path& directory) {
    std::error_code ec;
    if (!fs::is_directory(directory, ec)) {
        impl_->problems.push_back({directory, "plugin directory does not exist"});
        return;
    }
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(directory, ec)) {
        if (entry.path().extension() == ".so" && entry.is_regular_file(ec))
            files.push_back(entry.path());
    }
    if (ec) impl_->problems.push_back({directory, "cannot list: " + ec.message()});
    std::sort(files.begin(), files.end());
    for (const auto& file : files) load_file(file);
}

Registry Registry::discover(const DiscoveryOptions& options) {
    Registry registry;
    if (options.use_environment) {
        for (const auto& dir : environment_directories()) registry.load_directory(dir);
    }
    for (const auto& dir : options.directories) registry.load_directory(dir);
    if (options.use_default_directory) {
        fs::path bundled = default_plugin_directory();
        std::error_code ec;
        // A host without bundled plugins is fine; only named directories must exist.
        if (!bundled.empty() && fs::is_directory(bundled, ec)) registry.load_directory(bundled);
    }
    if (options.strict && !registry.problems().empty()) {
        std::string message = "plugin discovery failed (strict):";
        for (const auto& problem : registry.problems()) {
            message += "\n  " + problem.file.string() + ": " + problem.reason;
        }
        throw InvokerError(message);
    }
    return registry;
}

}  // namespace cmfpipe
