// renderSegments by sentinel-wrapped values and a checked second render (see segments.hpp).
#include "cmfpipe/core/prompty/segments.hpp"

#include <algorithm>
#include <cctype>

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

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

// One line: \s* #? \s* (system|user|assistant|developer) ([...])? \s* :
bool line_is_boundary(std::string_view line) {
    std::size_t i = 0;
    auto skip_space = [&] {
        while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    };
    skip_space();
    if (i < line.size() && line[i] == '#') ++i;
    skip_space();
    std::size_t word = i;
    while (i < line.size() && std::isalpha(static_cast<unsigned char>(line[i]))) ++i;
    std::string role = lower(line.substr(word, i - word));
    if (role != "system" && role != "user" && role != "assistant" && role != "developer")
        return false;
    if (i < line.size() && line[i] == '[') {
        auto close = line.find(']', i);
        if (close == std::string_view::npos) return false;
        i = close + 1;
    }
    skip_space();
    return i < line.size() && line[i] == ':';
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

bool has_role_boundary(std::string_view value) {
    std::size_t start = 0;
    while (start <= value.size()) {
        std::size_t end = value.find('\n', start);
        if (end == std::string_view::npos) end = value.size();
        if (line_is_boundary(value.substr(start, end - start))) return true;
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
            if (value.is_string() && is_strict(name) &&
                has_role_boundary(value.get_ref<const std::string&>())) {
                throw ValueError("StrictViolation: strict input '" + name +
                                 "' carries a role boundary");
            }
        }
        SegmentedRender result;
        Json prepared = detail::prepare_inputs(agent, std::move(validated), result.request);
        const std::string plain =
            detail::run_renderer(invokers, agent, prepared, result.request, options);

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
        const std::string text =
            detail::run_renderer(invokers, agent, wrapped, result.request, options);

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
