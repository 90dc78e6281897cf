#pragma once
// renderSegments (the Prompty conformance op; jinja-subset.md §8.4): the render cut into what the
// author wrote ("literal") and what came from an input ("interp", tagged with the input's name).
//
// How: string inputs (and rich-input placeholders) are wrapped in private-use sentinels
// (U+E000 index U+E001 value U+E002) and the template is rendered a second time; the sentinels
// mark where each value landed. The sentinel-free projection must equal the plain render, or the
// template transformed a value beyond recognition (slicing, `length`, comparison) and the call is
// a ValueError rather than a guess. Non-string values (numbers, lists) stay in literal segments.
//
// The template is rendered as the author wrote it: segments are not parsed, so author role markers
// get no nonce.
//
// A strict input (Property.strict, or named in `strict_inputs`) whose value has a line that opens
// with a role boundary (`system:`, `# user[name=x]: text`, ... as the parser of
// template.parser.kind defines them: MarkerFit::line_start) is a ValueError "StrictViolation: ..."
// before anything is rendered. Without a parser in the invokers a strict input is an InvokerError.
#include <optional>
#include <string>
#include <vector>

#include "cmfpipe/core/prompty/render.hpp"

namespace cmfpipe::prompty {

struct RenderSegment {
    std::string kind;  // "literal" | "interp"
    std::string text;
    std::optional<std::string> source;  // the input's name (interp only)
    bool strict = false;                // the input is strict
};

struct SegmentedRender {
    std::vector<RenderSegment> segments;  // adjacent literal text is one segment
    RequestContext request;
};

SegmentedRender render_segments(const Invokers& invokers, const Agent& agent, const Json& inputs,
                                const std::vector<std::string>& strict_inputs = {},
                                const RenderOptions& options = {});

// {"kind", "text", "source" (null for literal), "strict"}
Json to_json(const RenderSegment& segment);

// True when a line of `value` opens with a role boundary in `parser`'s grammar (what a strict
// input may not carry).
bool has_role_boundary(const Parser& parser, std::string_view value);

}  // namespace cmfpipe::prompty
