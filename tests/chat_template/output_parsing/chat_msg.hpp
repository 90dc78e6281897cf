#pragma once
// The message llama.cpp's harness compares (its common_chat_msg, the fields the output-parsing
// cases use): content, reasoning_content and tool calls whose arguments are JSON text. Both sides
// of a comparison are brought to it: a case's "expect", and the CMF message from_wire returned.
#include <string>
#include <vector>

#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/json.hpp"

namespace cmfpipe::output_parsing {

struct ChatToolCall {
    std::string name;
    std::string arguments;  // JSON text, or what there is of it in a call cut short
    std::string id;
    // A call the completion ended inside (custom.unfinished_tool_call): its arguments grow as
    // the text does, until the call is finished and they become the object's JSON.
    bool unfinished = false;
};

struct ChatMsg {
    std::string content;
    std::string reasoning_content;
    std::vector<ChatToolCall> tool_calls;
};

// A case's "expect" or a named message: {content, reasoning_content, tool_calls: [{name,
// arguments, id}]}, each member optional.
ChatMsg chat_msg_from_json(const Json& message);

// What from_wire's message (the chat_template adapter's, CT_CONTRACT) says in those fields: the
// text parts joined (content), the thinking parts joined (reasoning), a call per tool_call part
// (name with its namespace, "ns.name"; arguments as compact JSON; tool_call_id), then a call per
// entry of custom.invalid_tool_arguments (its raw text), then custom.unfinished_tool_call.
ChatMsg chat_msg_from_cmf(const cmf::Message& message);

// The message as JSON, for reasons and reports: {"content", "reasoning_content", "tool_calls"}.
Json to_json(const ChatMsg& message);

}  // namespace cmfpipe::output_parsing
