#pragma once
// The host's side of every call into a renderer, parser or adapter a plugin made: a
// cmfpipe::Error passes unchanged; anything else the plugin throws (a std::exception, `throw 42`)
// becomes a PluginError "plugin 'NAME' (FILE) kind 'KIND' threw: ...". The registry wraps each
// object once, so every host path (CLI, prompty, embedding hosts) gets the rule without a
// try/catch of its own. Processors the registry makes are not wrapped: the pipeline names the
// configured processor in its own decisions.
#include <memory>
#include <string>
#include <string_view>

#include "cmfpipe/adapter.hpp"
#include "cmfpipe/core/registry.hpp"
#include "cmfpipe/parser.hpp"
#include "cmfpipe/processor.hpp"
#include "cmfpipe/renderer.hpp"

namespace cmfpipe {

// "plugin 'NAME' (FILE) kind 'KIND'"; "(built-in)" in place of a file for a linked-in plugin.
std::string describe_plugin_kind(const PluginOrigin& origin, std::string_view kind);

// `who` is a describe_plugin_kind() text. The guard owns the plugin's object, and with it (through
// the object's deleter) the plugin's library.
std::shared_ptr<Renderer> guard_plugin_object(std::shared_ptr<Renderer> renderer, std::string who);
// Processors only when a plugin obtains one through the host (host_services.hpp): no pipeline
// names it then.
std::shared_ptr<Processor> guard_plugin_object(std::shared_ptr<Processor> processor,
                                               std::string who);
std::shared_ptr<Parser> guard_plugin_object(std::shared_ptr<Parser> parser, std::string who);
std::shared_ptr<Adapter> guard_plugin_object(std::shared_ptr<Adapter> adapter, std::string who);

}  // namespace cmfpipe
