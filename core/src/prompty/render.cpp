// render (spec §5.4): validation, rich inputs -> placeholders, strict marker nonce, renderer.
#include "cmfpipe/core/prompty/render.hpp"

#include <optional>

#include "author_marker_tokens.hpp"
#include "render_steps.hpp"

#include "cmfpipe/core/prompty/nonce.hpp"
#include "cmfpipe/core/prompty/validation.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/request.hpp"

namespace cmfpipe::prompty {
namespace {

// The rich kind of an input: its declared kind, or the `_kind` a caller tagged the value with
// ({"_kind": "thread", "messages": [...]}, the form the conformance vectors use for templates
// without declared inputs). Nothing when the input is plain.
std::optional<RichKind> rich_kind_of(const Agent& agent, const std::string& name,
                                     const Json& value) {
    if (const Property* p = agent.find_input(name)) {
        if (auto kind = rich_kind_from_string(p->kind)) return kind;
    }
    if (value.is_object()) {
        auto tag = value.find("_kind");
        if (tag != value.end() && tag->is_string())
            return rich_kind_from_string(tag->get_ref<const std::string&>());
    }
    return std::nullopt;
}

Json rich_value(RichKind kind, const std::string& name, const Json& value) {
    if (kind == RichKind::thread) return normalize_thread(value, name);
    if (value.is_object() && value.contains("_kind")) {
        Json copy = value;
        copy.erase("_kind");
        return copy;
    }
    return value;
}

// Every renderer is told it renders a Prompty body ("profile": "prompty"; jinja2 picks its
// dialect by it, others ignore it) and the template's name; the agent's format.options and the
// caller's options go over that.
Json renderer_defaults(const Agent& agent) {
    Json out = {{"profile", "prompty"},
                {"template_name", agent.source.empty() ? agent.name : agent.source}};
    if (agent.template_config.format_options.is_object())
        out.update(agent.template_config.format_options);
    return out;
}

Json renderer_options_for(const Agent& agent, const RenderOptions& options) {
    Json out = renderer_defaults(agent);
    if (options.renderer_options.is_object()) out.update(options.renderer_options);
    return out;
}

// The agent's cached options when `invokers` were made for it (cache_agent_options).
const Invokers::AgentOptions* cached_options(const Invokers& invokers, const Agent& agent) {
    return invokers.agent_options && invokers.agent_options->agent == &agent
               ? invokers.agent_options.get()
               : nullptr;
}

// A renderer reports lines of the template; the template starts at the body's line in the file.
[[noreturn]] void rethrow_in_file(const ValueError& e, const Agent& agent,
                                  const std::string& template_name) {
    SourceLocation where = e.where();
    if (where.file == template_name && where.line > 0 && !agent.source.empty()) {
        where.line += agent.body_line - 1;
        throw ValueError(e.message(), where);
    }
    throw;
}

}  // namespace

namespace detail {

Json prepare_inputs(const Agent& agent, Json validated, RequestContext& request) {
    Json prepared = Json::object();
    prepared.get_ref<Json::object_t&>().reserve(validated.size());  // never grown: no copies
    for (auto& [name, value] : validated.items()) {
        std::optional<RichKind> kind = rich_kind_of(agent, name, value);
        if (!kind) {
            prepared[name] = std::move(value);
            continue;
        }
        std::string placeholder = make_placeholder(name);
        prepared[name] = placeholder;
        request.rich_inputs.emplace(std::move(placeholder),
                                    RichInput{name, *kind, rich_value(*kind, name, value)});
    }
    if (agent.template_config.is_strict()) request.marker_nonce = random_hex(marker_nonce_bytes);
    return prepared;
}

std::string run_renderer(const Invokers& invokers, const Agent& agent, const Json& prepared,
                         RequestContext& request, const RenderOptions& options,
                         AuthorMarkers author_markers, const Json& parser_options) {
    if (!invokers.renderer) {
        throw InvokerError("no renderer for template format '" + agent.template_config.format_kind +
                           "'");
    }
    // The renderer's options are the agent's alone unless the caller adds some: made once then.
    const Invokers::AgentOptions* cached =
        options.renderer_options.empty() ? cached_options(invokers, agent) : nullptr;
    std::optional<Json> built;
    if (!cached) built = renderer_options_for(agent, options);
    const Json& render_options = cached ? cached->renderer : *built;
    const std::string template_name =
        cached ? cached->template_name : render_options.value("template_name", std::string());
    try {
        if (!invokers.parser || author_markers == AuthorMarkers::as_written)
            return invokers.renderer->render(agent.instructions, prepared, render_options);
        if (!agent.template_config.is_strict()) {
            const std::string marked =
                invokers.parser->prepare_template(agent.instructions, parser_options, request);
            return invokers.renderer->render(marked, prepared, render_options);
        }
        // Strict: the marked author markers never reach the renderer (author_marker_tokens.hpp);
        // the tokenized template is made once, and only the marker lines are marked per request.
        const std::shared_ptr<const TokenizedTemplate> tokenized =
            invokers.strict_templates
                ? invokers.strict_templates->get(agent.instructions, invokers.parser)
                : std::make_shared<const TokenizedTemplate>(
                      tokenize_author_markers(agent.instructions, *invokers.parser));
        const MarkedMarkers markers =
            marked_author_markers(*tokenized, *invokers.parser, parser_options, request);
        refuse_marker_tokens_in_inputs(prepared);
        refuse_token_mark_in_template(*tokenized);
        return restore_author_markers(
            invokers.renderer->render(tokenized->text, prepared, render_options), markers,
            agent.template_config.format_kind);
    } catch (const ValueError& e) {
        rethrow_in_file(e, agent, template_name);
    }
}

RenderResult render_with(const Invokers& invokers, const Agent& agent, const Json& inputs,
                         const RenderOptions& options, const Json& parser_options) {
    options.trace.redact_values(agent.environment_values);
    tracing::Span span = options.trace.start("render");
    try {
        Json validated = validate_inputs(agent, inputs);
        if (span.active()) {
            span.emit("signature", "cmfpipe.prompty.render");
            span.emit("inputs", {{"agent", agent.name}, {"inputs", validated}});
        }
        RenderResult result;
        Json prepared = prepare_inputs(agent, std::move(validated), result.request);
        result.text = run_renderer(invokers, agent, prepared, result.request, options,
                                   AuthorMarkers::marked, parser_options);
        if (span.active()) span.emit("result", result.text);
        return result;
    } catch (const Error& e) {
        span.emit_error(e.kind(), e.what());
        throw;
    }
}

std::shared_ptr<StrictTemplates> make_strict_templates() {
    return std::make_shared<StrictTemplates>();
}

}  // namespace detail

Invokers make_invokers(const Registry& registry, const Agent& agent) {
    Invokers out;
    out.renderer = registry.make_renderer(agent.template_config.format_kind);
    out.parser = registry.make_parser(agent.template_config.parser_kind);
    return out;
}

void cache_agent_options(Invokers& invokers, const Agent& agent) {
    auto options = std::make_shared<Invokers::AgentOptions>();
    options->agent = &agent;
    options->renderer = renderer_defaults(agent);
    options->template_name = options->renderer.value("template_name", std::string());
    options->parser = parser_options(agent);
    invokers.agent_options = std::move(options);
}

namespace detail {
const Json& parser_options_of(const Invokers& invokers, const Agent& agent, Json& built) {
    if (const Invokers::AgentOptions* cached = cached_options(invokers, agent))
        return cached->parser;
    built = parser_options(agent);
    return built;
}
}  // namespace detail

Json parser_options(const Agent& agent) {
    Json out = agent.template_config.parser_options.is_object()
                   ? agent.template_config.parser_options
                   : Json::object();
    out["strict"] = agent.template_config.is_strict();
    // Parse errors point into the rendered text, whose lines are not the file's: say so.
    if (!agent.source.empty()) out["template_name"] = "<rendered " + agent.source + ">";
    return out;
}

RenderResult render(const Invokers& invokers, const Agent& agent, const Json& inputs,
                    const RenderOptions& options) {
    Json built;
    return detail::render_with(invokers, agent, inputs, options,
                               detail::parser_options_of(invokers, agent, built));
}

RenderResult render(const Registry& registry, const Agent& agent, const Json& inputs,
                    const RenderOptions& options) {
    return render(make_invokers(registry, agent), agent, inputs, options);
}

}  // namespace cmfpipe::prompty
