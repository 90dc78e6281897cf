#pragma once
// The cases of corpus/output-parsing/parser-cases.json, resolved into what one run needs. The
// file keeps llama.cpp's builder calls as text: a case's "opts" name tools ("{get_time_tool}",
// or a tool written inline as C++ braces), messages ("{message_user,
// message_assist_prefill_content}"), a schema ("invoice_schema") and enum values
// ("COMMON_REASONING_FORMAT_AUTO", "true"); its "template" names one file or a loop over several.
// Names are looked up in the file's "tools" and "named_messages", then in harness_data.hpp.
// Anything else is a ValueError naming the case and the option: a case is never half-read.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chat_msg.hpp"
#include "cmfpipe/json.hpp"

namespace cmfpipe::output_parsing {

struct ParserCase {
    std::size_t index = 0;
    // The templates it runs with, as file names ("Qwen3.5-4B.jinja"): one run each.
    std::vector<std::string> templates;
    std::string input;  // the completion
    // The conversation the prompt is rendered from (CMF JSON messages): .messages(...), or the
    // harness's one user message.
    Json messages = Json::array();
    Json tools = Json::array();    // OpenAI function tools; empty: none
    std::string reasoning_format;  // "none" | "auto" | "deepseek"
    bool enable_thinking = true;   // the harness's defaults, from harness_defaults
    bool parallel_tool_calls = false;
    bool add_generation_prompt = true;
    std::string continue_final_message;  // "" | "content" | "reasoning_content"
    std::optional<Json> json_schema;
    bool tool_choice_required = false;  // COMMON_CHAT_TOOL_CHOICE_REQUIRED
    bool is_partial = false;            // the completion is cut short
    bool expect_reconstruction = false;
    ChatMsg expect;
};

class CaseFile {
  public:
    // parser-cases.json as parsed; `name` is what errors call it.
    CaseFile(Json document, std::string name);

    const std::string& source() const { return source_; }  // llama.cpp's file and commit
    std::size_t size() const { return document_.at("cases").size(); }
    ParserCase read(std::size_t index) const;

  private:
    Json document_;
    std::string name_;
    std::string source_;
    bool enable_thinking_ = true, parallel_tool_calls_ = false, add_generation_prompt_ = true;
};

// The file names a "template" field runs: "models/templates/X.jinja" is X.jinja; "loop: A, B"
// and "LFM2 family loop: A, B (test_lfm2_parser)" are A and B (each as a file name).
std::vector<std::string> template_file_names(std::string_view field);

// "{a, b}" -> {"a", "b"}.
std::vector<std::string> braced_names(std::string_view value);

// Tools written inline as C++ aggregate initializers of common_chat_tool,
// {{"name", "description", "<parameters JSON, C++ escapes>"}, ...}, as OpenAI function tools.
Json inline_tools(std::string_view value);

// A message of the harness ({role (default assistant), content, reasoning_content, tool_calls,
// tool_call_id}) as a CMF JSON message: user and system text; a tool result; an assistant's
// thinking, text and tool calls (whose arguments must be JSON objects).
Json cmf_message(const Json& message);

}  // namespace cmfpipe::output_parsing
