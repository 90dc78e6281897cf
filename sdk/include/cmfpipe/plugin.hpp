#pragma once
// What a plugin author includes. A plugin is a .cpp file with its classes and:
//
//   static void register_kinds(cmfpipe::Registrar& r) {
//       r.add_renderer("upper", [](const cmfpipe::Json&) { return std::make_unique<Upper>(); });
//   }
//   CMFPIPE_PLUGIN(upper, "0.1.0", register_kinds)
//
// A plugin that uses another kind (a renderer, say) obtains it from the host through
// registrar.host() (host_services.hpp), never by linking the plugin that provides it.
//
// CMFPIPE_PLUGIN exports the C descriptor of abi.h under the alias "cmfpipe_plugin"
// (Boost.DLL). Built with CMFPIPE_PLUGIN_STATIC defined, it instead defines
// `extern "C" const cmfpipe_plugin_descriptor* cmfpipe_builtin_<id>()` so several plugins
// can be linked into one binary and handed to Registry::add_builtin.
#include <functional>
#include <memory>
#include <string>

#include "cmfpipe/abi.h"
#include "cmfpipe/adapter.hpp"
#include "cmfpipe/host_services.hpp"
#include "cmfpipe/json.hpp"
#include "cmfpipe/parser.hpp"
#include "cmfpipe/processor.hpp"
#include "cmfpipe/renderer.hpp"

namespace cmfpipe {

// Factories receive the per-instance configuration (a JSON object, possibly empty).
using RendererFactory = std::function<std::unique_ptr<Renderer>(const Json& config)>;
using ParserFactory = std::function<std::unique_ptr<Parser>(const Json& config)>;
using AdapterFactory = std::function<std::unique_ptr<Adapter>(const Json& config)>;
using ProcessorFactory = std::function<std::unique_ptr<Processor>(const Json& config)>;

// Handed to a plugin's registration function; it records factories by (type, kind).
class Registrar {
  public:
    virtual ~Registrar();
    virtual void add_renderer(const std::string& kind, RendererFactory factory) = 0;
    virtual void add_parser(const std::string& kind, ParserFactory factory) = 0;
    virtual void add_adapter(const std::string& kind, AdapterFactory factory) = 0;
    virtual void add_processor(const std::string& kind, ProcessorFactory factory) = 0;
    // The host's other kinds, for factories that use them (host_services.hpp). Valid while the
    // registry lives: a factory may capture it by reference.
    virtual const HostServices& host() const = 0;
};

}  // namespace cmfpipe

#ifndef CMFPIPE_BUILD_ID
#define CMFPIPE_BUILD_ID "unknown"
#endif

#define CMFPIPE_PLUGIN_DESCRIPTOR_(ID, VERSION, REGISTER)                             \
    namespace {                                                                       \
    void cmfpipe_register_##ID(::cmfpipe_registrar* registrar) {                      \
        REGISTER(*reinterpret_cast<::cmfpipe::Registrar*>(registrar));                \
    }                                                                                 \
    const ::cmfpipe_plugin_descriptor cmfpipe_descriptor_##ID = {                     \
        CMFPIPE_ABI_VERSION, #ID, VERSION, CMFPIPE_BUILD_ID, &cmfpipe_register_##ID}; \
    }

#ifdef CMFPIPE_PLUGIN_STATIC
#define CMFPIPE_PLUGIN(ID, VERSION, REGISTER)                              \
    CMFPIPE_PLUGIN_DESCRIPTOR_(ID, VERSION, REGISTER)                      \
    extern "C" const ::cmfpipe_plugin_descriptor* cmfpipe_builtin_##ID() { \
        return &cmfpipe_descriptor_##ID;                                   \
    }
#else
#include <boost/dll/alias.hpp>
#define CMFPIPE_PLUGIN(ID, VERSION, REGISTER)                 \
    CMFPIPE_PLUGIN_DESCRIPTOR_(ID, VERSION, REGISTER)         \
    namespace {                                               \
    const ::cmfpipe_plugin_descriptor* cmfpipe_entry_##ID() { \
        return &cmfpipe_descriptor_##ID;                      \
    }                                                         \
    }                                                         \
    BOOST_DLL_ALIAS(cmfpipe_entry_##ID, cmfpipe_plugin)
#endif
