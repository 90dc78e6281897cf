// Fuzz target: the chat_template adapter's from_wire, the completion parser its template's
// analysis implies (plugins/chat_template/completion_parser.hpp), as `cmfpipe parse-output
// --from chat_template --template T.jinja` runs it. The input's first byte picks one of the
// corpus templates in chat_template_templates.txt (every call format the analysis tells apart;
// their analyses are made once, in the adapter's cache), the second the options, the rest is the
// completion:
//   bit 0 partial (a stream's prefix), bit 1 parallel_tool_calls false, bit 2 reasoning_format
//   none, bit 3 enable_thinking true, bit 4 no tools (call markup stays text), bit 5 json_schema.
// The dictionary (dicts/chat_template.dict) holds these templates' markers. Without the corpus
// every input is skipped.
#include <array>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cmfpipe/json_parse.hpp"
#include "from_wire_target.hpp"

namespace {

using cmfpipe::Json;
namespace fs = std::filesystem;

struct Template {
    std::string name, text;
};

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The templates listed beside this file that the corpus holds (it may be absent).
const std::vector<Template>& templates() {
    static const std::vector<Template> all = [] {
        std::vector<Template> out;
        const fs::path corpus = fs::path(CMFPIPE_CORPUS_DEFAULT) / "chat-templates" / "templates";
        std::ifstream list(fs::path(CMFPIPE_SOURCE_DIR) / "tests" / "fuzz" /
                           "chat_template_templates.txt");
        for (std::string name; std::getline(list, name);) {
            const fs::path file = corpus / (name + ".jinja");
            if (!name.empty() && fs::exists(file)) out.push_back({name, read_file(file)});
        }
        return out;
    }();
    return all;
}

// The harness tools of llama.cpp's output-parsing cases the seeds come from, and one with a
// string, an integer and an object argument.
const Json& tools() {
    static const Json all = cmfpipe::parse_json(R"([
      {"type": "function", "function": {"name": "special_function", "parameters": {
        "type": "object", "properties": {"arg1": {"type": "integer"}}, "required": ["arg1"]}}},
      {"type": "function", "function": {"name": "python", "parameters": {
        "type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]}}},
      {"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"},
        "where": {"type": "object"}}}}},
      {"type": "function", "function": {"name": "empty_args", "parameters": {
        "type": "object", "properties": {}}}}])",
                                                "tools");
    return all;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2 || templates().empty()) return 0;
    static const std::shared_ptr<cmfpipe::Adapter> adapter =
        cmfpipe::fuzz::plugins().make_adapter("chat_template");
    const Template& chosen = templates()[data[0] % templates().size()];
    const std::uint8_t flags = data[1];
    Json options = {{"template", chosen.text},
                    {"template_name", chosen.name + ".jinja"},
                    {"source", "<fuzz input>"}};
    if (flags & 1) options["partial"] = true;
    if (flags & 2) options["parallel_tool_calls"] = false;
    if (flags & 4) options["reasoning_format"] = "none";
    if (flags & 8) options["enable_thinking"] = true;
    if (!(flags & 16)) options["tools"] = tools();
    if (flags & 32) options["json_schema"] = Json{{"type", "object"}};
    return cmfpipe::fuzz::run(data + 2, size - 2, cmfpipe::fuzz::Admit::model_output,
                              [&](std::string_view completion) {
                                  const auto messages = adapter->from_wire(completion, options);
                                  (void)cmfpipe::cmf::messages_to_json(messages).dump(
                                      -1, ' ', false, Json::error_handler_t::replace);
                              });
}
