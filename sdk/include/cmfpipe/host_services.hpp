#pragma once
// How a plugin uses another kind without linking another plugin: it asks the host. A plugin's
// registration function gets the host through Registrar::host(); a factory captures that
// reference and obtains what it needs when it is called:
//
//   static void register_kinds(cmfpipe::Registrar& r) {
//       const cmfpipe::HostServices& host = r.host();
//       r.add_adapter("mine", [&host](const cmfpipe::Json& config) {
//           return std::make_unique<Mine>(host.renderer("jinja2", cmfpipe::Json::object()));
//       });
//   }
//
// The host answers from its registry, exactly as it makes objects for itself:
//   - an unknown kind is an InvokerError naming the type, the kind and the kinds available;
//   - a factory that throws: its cmfpipe::Error passes unchanged, anything else is a PluginError;
//   - every call on what it returns that throws something other than a cmfpipe::Error becomes a
//     PluginError naming the plugin and kind that threw (not the plugin that asked);
//   - what it returns keeps its own plugin's library loaded for as long as it lives, so keep it
//     as long as you like (in the object the factory makes, typically).
//   - a kind that obtains itself, directly or through others, is an InvokerError naming the cycle.
//
// The reference is valid while the registry lives, which is while its factories can be called:
// obtain what you need in the factory, not later from the object it made (that object may
// outlive the registry).
#include <memory>
#include <string_view>

#include "cmfpipe/adapter.hpp"
#include "cmfpipe/json.hpp"
#include "cmfpipe/parser.hpp"
#include "cmfpipe/processor.hpp"
#include "cmfpipe/renderer.hpp"

namespace cmfpipe {

class HostServices {
  public:
    virtual ~HostServices();
    // An object of `kind` made with `config` (a JSON object; Json::object() for none).
    virtual std::shared_ptr<Renderer> renderer(std::string_view kind, const Json& config) const = 0;
    virtual std::shared_ptr<Parser> parser(std::string_view kind, const Json& config) const = 0;
    virtual std::shared_ptr<Adapter> adapter(std::string_view kind, const Json& config) const = 0;
    virtual std::shared_ptr<Processor> processor(std::string_view kind,
                                                 const Json& config) const = 0;
};

}  // namespace cmfpipe
