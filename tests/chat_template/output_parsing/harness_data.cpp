// The harness's own messages and schemas (see harness_data.hpp). Where each comes from in
// tests/test-chat.cpp at 1425386fd996:
//   message_user               a global beside the named assistant messages: user "Hey there!"
//   user_start, tool_result,   locals of the Qwen3.5 block of test_template_output_peg_parsers,
//   user_continue              the conversation before a turn that calls run_in_terminal
//                              (assistant_todos, the call between them, is in the case file)
//   invoice_schema,            locals at the top of test_template_output_peg_parsers, given to
//   const_schema               .json_schema(...)
#include "harness_data.hpp"

namespace cmfpipe::output_parsing {

const Json& harness_messages() {
    static const Json messages = Json::parse(R"({
      "message_user": {"role": "user", "content": "Hey there!"},
      "user_start": {"role": "user",
                     "content": "Create a todo list, then inspect the repository."},
      "tool_result": {"role": "tool", "content": "Successfully wrote todo list",
                      "tool_call_id": "call_todos"},
      "user_continue": {"role": "user", "content": "Proceed."}
    })");
    return messages;
}

const Json& harness_json_schemas() {
    static const Json schemas = Json::parse(R"({
      "invoice_schema": {"type": "object",
                         "properties": {"amount": {"type": "number"}, "date": {"type": "string"}}},
      "const_schema": {"const": "42"}
    })");
    return schemas;
}

}  // namespace cmfpipe::output_parsing
