// Structured output for the provider adapters (see structured_output.hpp).
#include "cmfpipe/wire/structured_output.hpp"

#include "cmfpipe/json_parse.hpp"
#include "cmfpipe/wire/tool_arguments.hpp"

namespace cmfpipe::wire {

bool wants_structured_output(const Json& options) {
    if (!options.is_object()) return false;
    if (auto it = options.find("structured"); it != options.end() && it->is_boolean())
        return it->get<bool>();
    auto it = options.find("outputs");
    return it != options.end() && (it->is_array() || it->is_object()) && !it->empty();
}

void add_structured_output(Json& custom, const cmf::Content& parts, const Json& options) {
    if (!wants_structured_output(options)) return;
    if (custom.contains("refusal") || custom.contains(invalid_tool_arguments_key)) return;
    std::string text;
    for (const cmf::PartPtr& p : parts) {
        if (p->type() == cmf::ContentType::tool_call) return;
        if (const auto* t = p->get_if<cmf::Text>()) text += t->text;
    }
    if (text.empty()) return;
    JsonParse parsed = try_parse_json(text);  // model output: bounded, never throws
    if (!parsed.value) {
        custom["structured_output_error"] =
            parsed.too_deep ? "the text is JSON nested deeper than max_depth; kept as text"
                            : "the text is not valid JSON; kept as text";
    } else {
        custom["structured_output"] = std::move(*parsed.value);
    }
}

}  // namespace cmfpipe::wire
