#pragma once
// Rendering an Agent (Prompty spec §5) and preparing it into CMF messages (§5 + §6).
//
// render():  validate inputs -> rich inputs become fresh placeholders (their values go into the
//            request's RequestContext::rich_inputs, never to the template engine) -> strict
//            templates get a fresh marker nonce and the parser's prepare_template -> the renderer
//            plugin of template.format.kind.
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

// The plugin instances an agent needs, made once and shared by any number of renders.
struct Invokers {
    std::shared_ptr<const Renderer> renderer;
    std::shared_ptr<const Parser> parser;  // may be null: render() then skips prepare_template
};

// By template.format.kind and template.parser.kind. Unknown kind: InvokerError (from the registry).
Invokers make_invokers(const Registry& registry, const Agent& agent);

struct RenderOptions {
    // Extra renderer options, merged over the defaults ({"profile": "prompty"} for jinja2,
    // {"template_name": agent source}) and template.format.options.
    Json renderer_options = Json::object();
    tracing::TraceContext trace;
};

struct RenderResult {
    std::string text;        // the rendered template
    RequestContext request;  // marker_nonce (strict only) and rich_inputs by placeholder
};

// The parser's options: template.parser.options plus {"strict": template.format.strict (default
// false)} and {"template_name": the agent's file} when it has one.
Json parser_options(const Agent& agent);

RenderResult render(const Invokers& invokers, const Agent& agent, const Json& inputs,
                    const RenderOptions& options = {});
RenderResult render(const Registry& registry, const Agent& agent, const Json& inputs,
                    const RenderOptions& options = {});

// A thread input in any accepted form (CMF messages; {role, content: [{kind, value}]}; content as
// a plain string; {"_kind": "thread", "messages": [...]}) as a JSON array of messages in the
// vector form {role, content: [{kind: "text", value}], metadata?}. Anything else: ValueError
// naming the input.
Json normalize_thread(const Json& value, const std::string& input_name);

}  // namespace cmfpipe::prompty
