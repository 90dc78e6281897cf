// prepare = render + parse, each its own span under one `prepare` span.
#include "cmfpipe/core/prompty/prepare.hpp"

#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/errors.hpp"

namespace cmfpipe::prompty {

std::vector<cmf::Message> parse(const Invokers& invokers, const Agent& agent, std::string_view text,
                                const RequestContext& request, const tracing::TraceContext& trace) {
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
        std::vector<cmf::Message> messages =
            invokers.parser->parse(text, parser_options(agent), request);
        if (span.active()) span.emit("result", cmf::messages_to_json(messages));
        return messages;
    } catch (const Error& e) {
        span.emit_error(e.kind(), e.what());
        throw;
    }
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
        RenderResult rendered = render(invokers, agent, inputs, inner);
        Prepared out{std::move(rendered.text), std::move(rendered.request), {}};
        out.messages = parse(invokers, agent, out.text, out.request, inner.trace);
        return out;
    } catch (const Error& e) {
        span.emit_error(e.kind(), e.what());
        throw;
    }
}

}  // namespace cmfpipe::prompty
