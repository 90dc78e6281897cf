#pragma once
// What llama.cpp's format handler for a particular template gives that template in place of the
// common inputs, where the runner can give the same through to_wire: further variables (the
// option chat_template_kwargs) and whether `tools` is passed. So far one template:
//   firefunction-v2 (common_chat_params_init_firefunction_v2): no `tools`; `functions`, the
//   tools as JSON text indented by 2 ("" without tools); `datetime`, the time as
//   "%b %d %Y %H:%M:%S GMT".
// Handlers that rewrite the messages themselves (Ministral 3's thinking blocks, gpt-oss's
// `thinking`) have no such counterpart: the adapter maps CMF to messages one way.
#include <string>

#include "cmfpipe/json.hpp"

namespace cmfpipe::output_parsing {

struct TemplateInputs {
    Json chat_template_kwargs = Json::object();  // empty: none
    bool tools_in_template = true;
};

// For the template file `name`, the case's OpenAI tools and the run's time (ISO,
// "2024-07-26T00:00:00").
TemplateInputs llama_template_inputs(const std::string& name, const Json& tools,
                                     const std::string& now);

}  // namespace cmfpipe::output_parsing
