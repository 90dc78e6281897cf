#pragma once
// The state one request carries from step to step (render -> parse -> process -> adapt).
// It is a plain value owned by the caller: no globals, no thread-locals.
#include <map>
#include <string>

#include "cmfpipe/json.hpp"

namespace cmfpipe {

// An input of a rich kind (thread, image, file, audio) that the renderer saw as a nonce.
struct RichInput {
    std::string name;  // the input's name in the template
    std::string kind;  // "thread" | "image" | "file" | "audio"
    Json value;        // the caller's value (messages for a thread, a URL/data for media)
};

struct RequestContext {
    // Nonce that strict-mode parsing expects on author role markers; empty when not strict.
    std::string marker_nonce;
    // Rich inputs by the nonce token that stands for them in the rendered text.
    std::map<std::string, RichInput> rich_inputs;
    // Trace context (trace id, parent span) and free-form attributes.
    Json trace = Json::object();
};

}  // namespace cmfpipe
