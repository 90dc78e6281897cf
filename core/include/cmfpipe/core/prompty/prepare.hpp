#pragma once
// prepare (Prompty spec §1.4): render, then parse into CMF messages with the parser plugin of
// template.parser.kind. The parser receives the render's RequestContext: the strict marker
// nonce and the rich inputs by placeholder (it expands threads and turns media into parts).
#include <string>
#include <vector>

#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/core/prompty/render.hpp"

namespace cmfpipe::prompty {

struct Prepared {
    std::string text;  // the rendered template
    RequestContext request;
    std::vector<cmf::Message> messages;
};

// No parser in `invokers`: InvokerError. Traced as a `prepare` span with `render` and `parse`
// children.
Prepared prepare(const Invokers& invokers, const Agent& agent, const Json& inputs,
                 const RenderOptions& options = {});

// The parse step alone (a `parse` span): parser->parse(text, parser_options(agent), request).
std::vector<cmf::Message> parse(const Invokers& invokers, const Agent& agent, std::string_view text,
                                const RequestContext& request,
                                const tracing::TraceContext& trace = {});

}  // namespace cmfpipe::prompty
