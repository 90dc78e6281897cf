// ContentPart: the invariants a part must hold however it was made (JSON or code).
#include <string>

#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/errors.hpp"

namespace cmfpipe::cmf {
namespace {

void require_object(const Json& value, const char* what) {
    if (!value.is_object())
        throw ValueError(std::string(what) + " must be a JSON object, got " + value.type_name());
}

struct InvariantCheck {
    void operator()(const ToolCall& part) const {
        require_object(part.arguments, "tool_call arguments");
    }
    void operator()(const PromptRequest& part) const {
        require_object(part.arguments, "prompt_request arguments");
    }
    void operator()(const Resource& part) const {
        require_object(part.annotations, "resource annotations");
        if (part.content && part.blob)
            throw ValueError("resource " + part.uri + " has both content and blob (at most one)");
    }
    void operator()(const ResourceReference& part) const {
        if (part.range_start && part.range_end && *part.range_end < *part.range_start)
            throw ValueError("resource_ref " + part.uri + ": range_end (" +
                             std::to_string(*part.range_end) + ") is less than range_start (" +
                             std::to_string(*part.range_start) + ")");
    }
    template <class Other>
    void operator()(const Other&) const {}
};

}  // namespace

ContentPart::ContentPart(Value value) : value_(std::move(value)) {
    std::visit(InvariantCheck{}, value_);
}

const std::string* ContentPart::text_if() const {
    if (const auto* text = std::get_if<Text>(&value_)) return &text->text;
    if (const auto* thinking = std::get_if<Thinking>(&value_)) return &thinking->text;
    return nullptr;
}

}  // namespace cmfpipe::cmf
