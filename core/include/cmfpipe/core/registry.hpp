#pragma once
// The registry: plugins discovered from shared objects (or linked in as built-ins), their
// factories keyed by (type, kind). Loading happens up front; afterwards the registry is
// read-only and its make_* functions may be called from many threads.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/abi.h"
#include "cmfpipe/adapter.hpp"
#include "cmfpipe/json.hpp"
#include "cmfpipe/parser.hpp"
#include "cmfpipe/processor.hpp"
#include "cmfpipe/renderer.hpp"

namespace cmfpipe {

enum class PluginType { renderer, parser, adapter, processor };
std::string_view to_string(PluginType type);
std::optional<PluginType> plugin_type_from_string(std::string_view name);

// Where a kind came from.
struct PluginOrigin {
    std::string name;
    std::string version;
    std::string build_id;
    std::filesystem::path file;  // empty for a built-in
};

struct RegisteredKind {
    PluginType type;
    std::string kind;
    PluginOrigin origin;
};

// A file that could not be used, and why. Discovery goes on past it.
struct LoadProblem {
    std::filesystem::path file;
    std::string reason;
};

struct DiscoveryOptions {
    // (b) directories named by the pipeline config or --plugin-path, searched after (a).
    std::vector<std::filesystem::path> directories;
    // (a) the colon-separated CMFPIPE_PLUGIN_PATH, searched first.
    bool use_environment = true;
    // (c) the bundled plugins beside libcmfpipe.so (lib/cmfpipe/plugins), searched last.
    bool use_default_directory = true;
    // Any LoadProblem becomes an InvokerError thrown by discover().
    bool strict = false;
};

class Registry {
  public:
    Registry();
    ~Registry();
    Registry(Registry&&) noexcept;
    Registry& operator=(Registry&&) noexcept;
    Registry(const Registry&) = delete;
    Registry& operator=(const Registry&) = delete;

    // Loads every plugin from the directories of `options`, in the order (a), (b), (c).
    // When two files claim one (type, kind), the first loaded keeps it and the later file is
    // refused whole, reported as a LoadProblem naming both files.
    static Registry discover(const DiscoveryOptions& options = {});

    // Loads every "*.so" file of a directory, in name order. A missing directory is a problem.
    void load_directory(const std::filesystem::path& directory);
    // Loads one plugin file. Returns false (and records a LoadProblem) when it cannot be used.
    bool load_file(const std::filesystem::path& file);
    // Registers a plugin linked into this binary (see CMFPIPE_PLUGIN_STATIC in plugin.hpp).
    bool add_builtin(const cmfpipe_plugin_descriptor* descriptor);

    // Instances keep their plugin's library loaded for as long as they live.
    // Unknown kind: InvokerError naming the type, the kind and the available kinds.
    // A factory that throws: its cmfpipe::Error passes through; anything else becomes PluginError.
    // The same holds for every call on a renderer, parser or adapter made here: a cmfpipe::Error
    // passes through, anything else (even `throw 42`) becomes a PluginError
    // "plugin 'NAME' (FILE) kind 'KIND' threw: ...".
    // A plugin's factory that uses another kind asks Registrar::host() (host_services.hpp), which
    // these functions answer under the same rules; a kind that obtains itself is an InvokerError
    // naming the cycle.
    std::shared_ptr<Renderer> make_renderer(std::string_view kind,
                                            const Json& config = Json::object()) const;
    std::shared_ptr<Parser> make_parser(std::string_view kind,
                                        const Json& config = Json::object()) const;
    std::shared_ptr<Adapter> make_adapter(std::string_view kind,
                                          const Json& config = Json::object()) const;
    std::shared_ptr<Processor> make_processor(std::string_view kind,
                                              const Json& config = Json::object()) const;

    bool has(PluginType type, std::string_view kind) const;
    // Kinds of one type, sorted.
    std::vector<std::string> kinds(PluginType type) const;
    // Every registered kind, sorted by type then kind.
    std::vector<RegisteredKind> list() const;
    const std::vector<LoadProblem>& problems() const;

    // The directory of bundled plugins: <dir of libcmfpipe.so>/cmfpipe/plugins.
    static std::filesystem::path default_plugin_directory();
    // CMFPIPE_PLUGIN_PATH split on ':', empty entries dropped.
    static std::vector<std::filesystem::path> environment_directories();

    struct Impl;

  private:
    std::unique_ptr<Impl> impl_;
};

// {"plugins": [{type, kind, plugin, version, build_id, file}...], "problems": [{file, reason}...]}:
// what `cmfpipe plugins --json` prints and `serve` answers at GET /v1/plugins.
Json registry_listing(const Registry& registry);

}  // namespace cmfpipe
