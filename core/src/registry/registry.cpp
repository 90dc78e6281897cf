#include <algorithm>
#include <type_traits>

#include "plugin_guard.hpp"
#include "registry_impl.hpp"

namespace cmfpipe {

std::string_view to_string(PluginType type) {
    switch (type) {
        case PluginType::renderer:
            return "renderer";
        case PluginType::parser:
            return "parser";
        case PluginType::adapter:
            return "adapter";
        case PluginType::processor:
            return "processor";
    }
    return "unknown";
}

std::optional<PluginType> plugin_type_from_string(std::string_view name) {
    for (auto type :
         {PluginType::renderer, PluginType::parser, PluginType::adapter, PluginType::processor}) {
        if (to_string(type) == name) return type;
    }
    return std::nullopt;
}

namespace {

// Collects what one plugin registers, without touching the registry yet.
class StagingRegistrar final : public Registrar {
  public:
    explicit StagingRegistrar(const HostServices& host) : host_(host) {}

    std::vector<std::pair<std::pair<PluginType, std::string>, AnyFactory>> staged;
    std::string error;

    void add_renderer(const std::string& kind, RendererFactory f) override {
        stage(PluginType::renderer, kind, std::move(f));
    }
    void add_parser(const std::string& kind, ParserFactory f) override {
        stage(PluginType::parser, kind, std::move(f));
    }
    void add_adapter(const std::string& kind, AdapterFactory f) override {
        stage(PluginType::adapter, kind, std::move(f));
    }
    void add_processor(const std::string& kind, ProcessorFactory f) override {
        stage(PluginType::processor, kind, std::move(f));
    }
    const HostServices& host() const override { return host_; }

  private:
    const HostServices& host_;

    template <class F>
    void stage(PluginType type, const std::string& kind, F factory) {
        if (kind.empty())
            throw ValueError(std::string("empty kind for a ") + std::string(to_string(type)));
        if (!factory)
            throw ValueError("null factory for " + std::string(to_string(type)) + " '" + kind +
                             "'");
        for (const auto& [key, _] : staged) {
            if (key.first == type && key.second == kind) {
                throw ValueError(std::string(to_string(type)) + " '" + kind + "' registered twice");
            }
        }
        staged.emplace_back(std::make_pair(type, kind), AnyFactory(std::move(factory)));
    }
};

std::string describe(const PluginOrigin& origin) {
    return origin.file.empty() ? "built-in plugin '" + origin.name + "'" : origin.file.string();
}

}  // namespace

bool Registry::Impl::register_plugin(const cmfpipe_plugin_descriptor& descriptor,
                                     std::shared_ptr<boost::dll::shared_library> library,
                                     const std::filesystem::path& file) {
    const std::string where = file.empty() ? "(built-in)" : file.string();
    // The ABI version is read before any C++ type of the plugin is touched.
    if (descriptor.abi_version != CMFPIPE_ABI_VERSION) {
        problems.push_back({file, "ABI version " + std::to_string(descriptor.abi_version) +
                                      " does not match the host's ABI version " +
                                      std::to_string(CMFPIPE_ABI_VERSION)});
        return false;
    }
    if (descriptor.name == nullptr || descriptor.register_factories == nullptr) {
        problems.push_back({file, "descriptor has no name or no registration function"});
        return false;
    }
    PluginOrigin origin{descriptor.name, descriptor.version ? descriptor.version : "",
                        descriptor.build_id ? descriptor.build_id : "", file};

    StagingRegistrar staging(*host);
    try {
        descriptor.register_factories(
            reinterpret_cast<cmfpipe_registrar*>(static_cast<Registrar*>(&staging)));
    } catch (const std::exception& e) {
        problems.push_back({file, std::string("registration threw: ") + e.what()});
        return false;
    } catch (...) {
        problems.push_back({file, "registration threw a non-standard exception"});
        return false;
    }
    if (staging.staged.empty()) {
        problems.push_back({file, "plugin '" + origin.name + "' registered no kinds"});
        return false;
    }
    for (const auto& [key, _] : staging.staged) {
        auto existing = entries.find(key);
        if (existing != entries.end()) {
            problems.push_back({file, std::string(to_string(key.first)) + " kind '" + key.second +
                                          "' is already registered by " +
                                          describe(existing->second.origin) + "; " + where +
                                          " was not loaded"});
            return false;
        }
    }
    for (auto& [key, factory] : staging.staged) {
        entries.emplace(key, FactoryEntry{library, origin, std::move(factory)});
    }
    return true;
}

Registry::Registry() : impl_(std::make_unique<Impl>()) {}
Registry::~Registry() = default;
Registry::Registry(Registry&&) noexcept = default;
Registry& Registry::operator=(Registry&&) noexcept = default;

bool Registry::add_builtin(const cmfpipe_plugin_descriptor* descriptor) {
    if (descriptor == nullptr) {
        impl_->problems.push_back({{}, "null built-in descriptor"});
        return false;
    }
    return impl_->register_plugin(*descriptor, nullptr, {});
}

namespace {

using KindKey = std::pair<PluginType, std::string>;

std::string describe(const KindKey& key) {
    return std::string(to_string(key.first)) + " '" + key.second + "'";
}

// The kinds being made on this thread, outermost first: a factory that obtains another kind
// through the host makes it while its own entry is still here, so a kind met twice is a cycle
// that would otherwise recurse until the stack ran out.
thread_local std::vector<KindKey> kinds_being_made;

class MakingKind {
  public:
    explicit MakingKind(KindKey key) {
        auto seen = std::find(kinds_being_made.begin(), kinds_being_made.end(), key);
        if (seen != kinds_being_made.end()) {
            std::string chain;
            for (auto it = seen; it != kinds_being_made.end(); ++it)
                chain += describe(*it) + " -> ";
            throw InvokerError("plugins obtain each other in a cycle through the host: " + chain +
                               describe(key));
        }
        kinds_being_made.push_back(std::move(key));
    }
    ~MakingKind() { kinds_being_made.pop_back(); }
    MakingKind(const MakingKind&) = delete;
    MakingKind& operator=(const MakingKind&) = delete;
};

template <class Interface, class Factory>
std::shared_ptr<Interface> make(const Registry::Impl& impl, PluginType type, std::string_view kind,
                                const Json& config) {
    auto found = impl.entries.find(std::make_pair(type, std::string(kind)));
    if (found == impl.entries.end()) {
        std::string available;
        for (const auto& k : impl.kinds(type)) available += (available.empty() ? "" : ", ") + k;
        throw InvokerError("no " + std::string(to_string(type)) + " registered for kind '" +
                           std::string(kind) +
                           "' (available: " + (available.empty() ? "none" : available) + ")");
    }
    const FactoryEntry& entry = found->second;
    std::unique_ptr<Interface> made;
    {
        MakingKind making(found->first);
        try {
            made = std::get<Factory>(entry.factory)(config);
        } catch (const Error&) {
            throw;
        } catch (const std::exception& e) {
            throw PluginError(std::string(to_string(type)) + " '" + std::string(kind) +
                              "' of plugin '" + entry.origin.name +
                              "' failed to construct: " + e.what());
        } catch (...) {
            throw PluginError(std::string(to_string(type)) + " '" + std::string(kind) +
                              "' of plugin '" + entry.origin.name +
                              "' failed to construct: it threw a non-standard exception");
        }
    }
    if (!made) {
        throw PluginError(std::string(to_string(type)) + " '" + std::string(kind) +
                          "' of plugin '" + entry.origin.name + "' returned no object");
    }
    // The deleter owns a reference to the library: the object's code stays mapped while it lives.
    std::shared_ptr<Interface> object(
        made.release(), [library = entry.library](Interface* object) { delete object; });
    if constexpr (std::is_same_v<Interface, Processor>) {
        return object;  // the pipeline names the configured processor when it throws
    } else {
        return guard_plugin_object(std::move(object), describe_plugin_kind(entry.origin, kind));
    }
}

}  // namespace

Registry::Impl::Impl() : host(make_host_services(*this)) {}
Registry::Impl::~Impl() = default;

std::shared_ptr<Renderer> Registry::Impl::make_renderer(std::string_view kind,
                                                        const Json& config) const {
    return make<Renderer, RendererFactory>(*this, PluginType::renderer, kind, config);
}
std::shared_ptr<Parser> Registry::Impl::make_parser(std::string_view kind,
                                                    const Json& config) const {
    return make<Parser, ParserFactory>(*this, PluginType::parser, kind, config);
}
std::shared_ptr<Adapter> Registry::Impl::make_adapter(std::string_view kind,
                                                      const Json& config) const {
    return make<Adapter, AdapterFactory>(*this, PluginType::adapter, kind, config);
}
std::shared_ptr<Processor> Registry::Impl::make_processor(std::string_view kind,
                                                          const Json& config) const {
    return make<Processor, ProcessorFactory>(*this, PluginType::processor, kind, config);
}

std::vector<std::string> Registry::Impl::kinds(PluginType type) const {
    std::vector<std::string> out;
    for (const auto& [key, _] : entries) {
        if (key.first == type) out.push_back(key.second);
    }
    return out;  // the map is ordered by (type, kind), so this is sorted
}

std::shared_ptr<Renderer> Registry::make_renderer(std::string_view kind, const Json& config) const {
    return impl_->make_renderer(kind, config);
}
std::shared_ptr<Parser> Registry::make_parser(std::string_view kind, const Json& config) const {
    return impl_->make_parser(kind, config);
}
std::shared_ptr<Adapter> Registry::make_adapter(std::string_view kind, const Json& config) const {
    return impl_->make_adapter(kind, config);
}
std::shared_ptr<Processor> Registry::make_processor(std::string_view kind,
                                                    const Json& config) const {
    return impl_->make_processor(kind, config);
}

bool Registry::has(PluginType type, std::string_view kind) const {
    return impl_->entries.count(std::make_pair(type, std::string(kind))) > 0;
}

std::vector<std::string> Registry::kinds(PluginType type) const {
    return impl_->kinds(type);
}

std::vector<RegisteredKind> Registry::list() const {
    std::vector<RegisteredKind> out;
    out.reserve(impl_->entries.size());
    for (const auto& [key, entry] : impl_->entries)
        out.push_back({key.first, key.second, entry.origin});
    return out;
}

const std::vector<LoadProblem>& Registry::problems() const {
    return impl_->problems;
}

}  // namespace cmfpipe
