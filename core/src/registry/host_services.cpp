// The host services a registry hands every plugin's registration (Registrar::host()): other kinds,
// made by the same registry under the same rules as the host's own (registry.hpp).
#include "plugin_guard.hpp"
#include "registry_impl.hpp"

namespace cmfpipe {
namespace {

class RegistryHostServices final : public HostServices {
  public:
    explicit RegistryHostServices(const Registry::Impl& impl) : impl_(impl) {}

    std::shared_ptr<Renderer> renderer(std::string_view kind, const Json& config) const override {
        return impl_.make_renderer(kind, config);
    }
    std::shared_ptr<Parser> parser(std::string_view kind, const Json& config) const override {
        return impl_.make_parser(kind, config);
    }
    std::shared_ptr<Adapter> adapter(std::string_view kind, const Json& config) const override {
        return impl_.make_adapter(kind, config);
    }
    std::shared_ptr<Processor> processor(std::string_view kind, const Json& config) const override {
        std::shared_ptr<Processor> made = impl_.make_processor(kind, config);
        return guard_plugin_object(std::move(made), describe_plugin_kind(origin_of(kind), kind));
    }

  private:
    const PluginOrigin& origin_of(std::string_view kind) const {
        return impl_.entries.find(std::make_pair(PluginType::processor, std::string(kind)))
            ->second.origin;  // make_processor succeeded, so the kind is there
    }

    const Registry::Impl& impl_;
};

}  // namespace

std::unique_ptr<HostServices> make_host_services(const Registry::Impl& impl) {
    return std::make_unique<RegistryHostServices>(impl);
}

}  // namespace cmfpipe
