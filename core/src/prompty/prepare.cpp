// prepare = render + parse, each its own span under one `prepare` span.
#include "cmfpipe/core/prompty/prepare.hpp"

#include "render_steps.hpp"

#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/errors.hpp"

namespace cmfpipe::prompty {

namespace {

std::vector<cmf::Message> parse_with(const Invokers& invokers, const Agent& agent,
                                     std::string_view text, const RequestContext& request,
                                     const tracing::TraceContext& trace,
                                     const Json& parser_options) {
    if (!invokers.parser) {
        throw InvokerError("no parser for template parser kind '" +
                           agent.template_config.parser_kind + "'");
    }
    trace.redact_values(agent.environment_values);
    tracing::Span span = trace.start("parse");
    try {
        if (span.active()) {
            span.emit("signature", "cmfpipe.prompty.parse");
            span.emit("inputs", {{"agent", agent.name}, {"rendered", text}});
        }
        std::vector<cmf::Message> messages = invokers.parser->parse(text, parser_options, request);
        if (span.active()) span.emit("result", cmf::messages_to_json(messages));
        return messages;
    } catch (const Error& e) {
        span.emit_error(e.kind(), e.what());
        throw;
    }
}

}  // namespace

std::vector<cmf::Message> parse(const Invokers& invokers, const Agent& agent, std::string_view text,
                                const RequestContext& request, const tracing::TraceContext& trace) {
    Json built;
    return parse_with(invokers, agent, text, request, trace,
                      detail::parser_options_of(invokers, agent, built));
}

Prepared prepare(const Invokers& invokers, const Agent& agent, const Json& inputs,
                 const RenderOptions& options) {
    if (!invokers.parser) {
        throw InvokerError("no parser for template parser kind '" +
                           agent.template_config.parser_kind + "'");
    }
    options.trace.redact_values(agent.environment_values);
    tracing::Span span = options.trace.start("prepare");
    RenderOptions inner = options;
    inner.trace = {options.trace.tracer, &span};
    try {
        // Built once for both steps: the strict render marks its markers with them, the parse
        // reads them.
        Json built;
        const Json& options_of_parser = detail::parser_options_of(invokers, agent, built);
        RenderResult rendered =
            detail::render_with(invokers, agent, inputs, inner, options_of_parser);
        Prepared out{std::move(rendered.text), std::move(rendered.request), {}};
        out.messages =
            parse_with(invokers, agent, out.text, out.request, inner.trace, options_of_parser);
        return out;
    } catch (const Error& e) {
        span.emit_error(e.kind(), e.what());
        throw;
    }
}

}  // namespace cmfpipe::prompty
