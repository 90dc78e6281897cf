// renderSegments by sentinel-wrapped values and a checked second render (see segments.hpp).
#include "cmfpipe/core/prompty/segments.hpp"

#include <algorithm>

#include "cmfpipe/core/prompty/validation.hpp"
#include "cmfpipe/errors.hpp"
#include "render_steps.hpp"

namespace cmfpipe::prompty {
namespace {

// U+E000..U+E002 in UTF-8. Private use: no template filter changes them.
constexpr std::string_view open_mark = "\xee\x80\x80";
constexpr std::string_view middle_mark = "\xee\x80\x81";
constexpr std::string_view close_mark = "\xee\x80\x82";

bool has_sentinel(std::string_view s) {
    return s.find(open_mark) != std::string_view::npos ||
           s.find(middle_mark) != std::string_view::npos ||
           s.find(close_mark) != std::string_view::npos;
}

void append(std::vector<RenderSegment>& out, RenderSegment segment) {
    if (segment.text.empty() && segment.kind == "literal") return;
    if (segment.kind == "literal" && !out.empty() && out.back().kind == "literal") {
        out.back().text += segment.text;
        return;
    }
    out.push_back(std::move(segment));
}

}  // namespace

bool has_role_boundary(const Parser& parser, std::string_view value) {
    std::size_t start = 0;
    while (start <= value.size()) {
        std::size_t end = value.find('\n', start);
        if (end == std::string_view::npos) end = value.size();
        if (parser.matches_role_marker(value.substr(start, end - start), MarkerFit::line_start))
            return true;
        start = end + 1;
    }
    return false;
}

Json to_json(const RenderSegment& s) {
    return {{"kind", s.kind},
            {"text", s.text},
            {"source", s.source ? Json(*s.source) : Json()},
            {"strict", s.strict}};
}

SegmentedRender render_segments(const Invokers& invokers, const Agent& agent, const Json& inputs,
                                const std::vector<std::string>& strict_inputs,
                                const RenderOptions& options) {
    tracing::Span span = options.trace.start("renderSegments");
    try {
        auto is_strict = [&](const std::string& name) {
            if (std::find(strict_inputs.begin(), strict_inputs.end(), name) != strict_inputs.end())
                return true;
            const Property* p = agent.find_input(name);
            return p && p->strict.value_or(false);
        };
        Json validated = validate_inputs(agent, inputs);
        for (const auto& [name, value] : validated.items()) {
            if (!value.is_string() || !is_strict(name)) continue;
            if (!invokers.parser) {
                throw InvokerError(
                    "renderSegments: strict input '" + name + "' needs the parser of kind '" +
                    agent.template_config.parser_kind + "' to say what a role boundary is");
            }
            if (has_role_boundary(*invokers.parser, value.get_ref<const std::string&>())) {
                throw ValueError("StrictViolation: strict input '" + name +
                                 "' carries a role boundary");
            }
        }
        SegmentedRender result;
        Json prepared = detail::prepare_inputs(agent, std::move(validated), result.request);
        const std::string plain = detail::run_renderer(invokers, agent, prepared, result.request,
                                                       options, detail::AuthorMarkers::as_written);

        std::vector<std::string> names;
        Json wrapped = prepared;
        for (auto& [name, value] : wrapped.items()) {
            if (!value.is_string()) continue;
            if (has_sentinel(value.get_ref<const std::string&>())) {
                throw ValueError("input '" + name +
                                 "' contains a private-use character U+E000..U+E002 that "
                                 "renderSegments reserves");
            }
            std::string marked(open_mark);
            marked += std::to_string(names.size());
            marked += middle_mark;
            marked += value.get<std::string>();
            marked += close_mark;
            value = std::move(marked);
            names.push_back(name);
        }
        const std::string text = detail::run_renderer(invokers, agent, wrapped, result.request,
                                                      options, detail::AuthorMarkers::as_written);

        // Cut the wrapped render at the sentinels; the projection must give back the plain render.
        std::string projection;
        std::size_t at = 0;
        while (at < text.size()) {
            std::size_t open = text.find(open_mark, at);
            if (open == std::string::npos) open = text.size();
            append(result.segments, {"literal", text.substr(at, open - at), std::nullopt, false});
            projection += text.substr(at, open - at);
            if (open == text.size()) break;
            std::size_t middle = text.find(middle_mark, open);
            std::size_t close =
                middle == std::string::npos ? middle : text.find(close_mark, middle);
            std::size_t index = names.size();
            if (middle != std::string::npos) {
                try {
                    index = std::stoul(
                        text.substr(open + open_mark.size(), middle - open - open_mark.size()));
                } catch (const std::exception&) {
                }
            }
            if (close == std::string::npos || index >= names.size()) {
                throw ValueError(
                    "renderSegments: the template transformed an input beyond attribution; use "
                    "render");
            }
            std::string value =
                text.substr(middle + middle_mark.size(), close - middle - middle_mark.size());
            projection += value;
            result.segments.push_back(
                {"interp", std::move(value), names[index], is_strict(names[index])});
            at = close + close_mark.size();
        }
        if (projection != plain) {
            throw ValueError(
                "renderSegments: the template transformed an input beyond attribution; use render");
        }
        if (span.active()) {
            Json segments = Json::array();
            for (const auto& s : result.segments) segments.push_back(to_json(s));
            span.emit("result", segments);
        }
        return result;
    } catch (const Error& e) {
        span.emit_error(e.kind(), e.what());
        throw;
    }
}

}  // namespace cmfpipe::prompty
