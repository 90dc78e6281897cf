#pragma once
// Rendering an Agent (Prompty spec §5) and preparing it into CMF messages (§5 + §6).
//
// render():  validate inputs -> rich inputs become fresh placeholders (their values go into the
//            request's RequestContext::rich_inputs, never to the template engine) -> strict
//            templates get a fresh marker nonce and the parser's prepare_template -> the renderer
//            plugin of template.format.kind. In strict mode the author's (marked) role markers go
//            around the renderer as tokens and are put back after it (sdk renderer.hpp), so the
//            renderer gets the same text for every request and cannot break a marker.
// Everything one render needs to hand to the parse step travels in RenderResult::request (a
// plain value): no global or thread-local state, so any number of renders may run at once.
#include <memory>
#include <string>
#include <vector>

#include "cmfpipe/core/prompty/agent.hpp"
#include "cmfpipe/core/registry.hpp"
#include "cmfpipe/core/tracing.hpp"
#include "cmfpipe/json.hpp"
#include "cmfpipe/parser.hpp"
#include "cmfpipe/renderer.hpp"
#include "cmfpipe/request.hpp"

namespace cmfpipe::prompty {
namespace detail {
class StrictTemplates;  // strict templates tokenized once (core/src/prompty/author_marker_tokens)
std::shared_ptr<StrictTemplates> make_strict_templates();
}  // namespace detail

// The plugin instances an agent needs, made once and shared by any number of renders.
struct Invokers {
    std::shared_ptr<const Renderer> renderer;
    // May be null: render() then skips prepare_template, and renderSegments cannot check strict
    // inputs (it asks the parser what a role boundary is).
    std::shared_ptr<const Parser> parser;
    // What strict renders through these invokers reuse: the template with its author markers as
    // tokens, made once per template text. Copies of an Invokers share it.
    std::shared_ptr<detail::StrictTemplates> strict_templates = detail::make_strict_templates();

    // What every render of one agent would build again (cache_agent_options): the renderer's
    // default options and parser_options(agent). Used only when the agent rendered is the one
    // they were made for, at the same address (a host's Prompt holds its agent immutable).
    struct AgentOptions {
        const Agent* agent = nullptr;
        Json renderer;  // {"profile", "template_name"} + template.format.options
        std::string template_name;
        Json parser;  // parser_options(*agent)
    };
    std::shared_ptr<const AgentOptions> agent_options = nullptr;
};

// By template.format.kind and template.parser.kind. Unknown kind: InvokerError (from the registry).
Invokers make_invokers(const Registry& registry, const Agent& agent);

// Builds invokers.agent_options for `agent`, which must stay where it is, unchanged, while the
// invokers render it (a host caches both per prompt): a render then copies no options.
void cache_agent_options(Invokers& invokers, const Agent& agent);

struct RenderOptions {
    // Extra renderer options, merged over the defaults ({"profile": "prompty", "template_name":
    // the agent's file, or its name}) and template.format.options.
    Json renderer_options = Json::object();
    tracing::TraceContext trace;
};

struct RenderResult {
    std::string text;        // the rendered template
    RequestContext request;  // marker_nonce (strict only) and rich_inputs by placeholder
};

// The parser's options: template.parser.options plus {"strict": template.format.strict (default
// true)} and {"template_name": "<rendered FILE>"} when the agent has a file.
Json parser_options(const Agent& agent);

RenderResult render(const Invokers& invokers, const Agent& agent, const Json& inputs,
                    const RenderOptions& options = {});
RenderResult render(const Registry& registry, const Agent& agent, const Json& inputs,
                    const RenderOptions& options = {});

}  // namespace cmfpipe::prompty
