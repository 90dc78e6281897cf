// openai/harmony's render vectors, byte for byte, through the real plugin: each conversation of
// the vector's Rust/Python test, built as CMF, rendered by make_adapter("harmony")->to_wire.
#include <catch2/catch.hpp>

#include "adapter_access.hpp"
#include "support/corpus.hpp"

using namespace harmony_test;

namespace {

// The vector as the upstream tests compare it: "\r\n" -> "\n", trailing whitespace trimmed.
std::string vector_text(const std::string& name) {
    std::string text = read_file((cmfpipe::testing::require_corpus("harmony") / name).string());
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i)
        if (!(text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n')) out += text[i];
    while (!out.empty() &&
           (out.back() == '\n' || out.back() == ' ' || out.back() == '\t' || out.back() == '\r'))
        out.pop_back();
    return out;
}

std::string render(const std::vector<Message>& messages, const Json& options,
                   const Json& agent = Json::object()) {
    Json wire = adapter()->to_wire(messages, agent, options);
    REQUIRE(wire.is_string());
    return wire.get<std::string>();
}

const Json& builtin_tools() {
    static Json tools =
        Json::parse(read_file(CMFPIPE_SOURCE_DIR "/tests/harmony/data/builtin_tools.json"));
    return tools;
}

Json tool(const std::string& name, const std::string& description, Json parameters = Json()) {
    Json t = {{"name", name}, {"kind", "function"}, {"description", description}};
    if (!parameters.is_null()) t["parameters"] = std::move(parameters);
    return t;
}

const std::string capital = "What is the capital of the largest country in the world?";
const std::string robot = "Answer the user's questions like a robot.";

}  // namespace

TEST_CASE("harmony vector test_simple_convo", "[harmony][vectors]") {
    CHECK(render({text(Role::user, "What is 2 + 2?")}, Json::object()) ==
          vector_text("test_simple_convo.txt"));
}

TEST_CASE("harmony vectors test_simple_convo with each effort, with and without instructions",
          "[harmony][vectors]") {
    for (std::string effort : {"low", "medium", "high"}) {
        Json options = {{"reasoning_effort", effort}};
        CHECK(render({text(Role::system, robot), text(Role::user, capital)}, options) ==
              vector_text("test_simple_convo_" + effort + "_effort.txt"));
        CHECK(render({text(Role::user, capital)}, options) ==
              vector_text("test_simple_convo_" + effort + "_effort_no_instruction.txt"));
    }
}

TEST_CASE("harmony vectors test_reasoning_system_message (three)", "[harmony][vectors]") {
    Json channels = Json::array({"analysis", "final"});
    CHECK(render({text(Role::user, "What is 2 + 2?")}, {{"valid_channels", channels}}) ==
          vector_text("test_reasoning_system_message.txt"));
    CHECK(render({text(Role::user, "What is the best place to eat candy in the world?")},
                 {{"valid_channels", channels}, {"reasoning_effort", "high"}}) ==
          vector_text("test_reasoning_system_message_no_instruction.txt"));
    CHECK(render({text(Role::user, "What is 42 * pi?")}, {{"valid_channels", channels},
                                                          {"knowledge_cutoff", "2021-01"},
                                                          {"current_date", "2021-01-01"}}) ==
          vector_text("test_reasoning_system_message_with_dates.txt"));
}

TEST_CASE("harmony vector test_render_functions_with_parameters", "[harmony][vectors]") {
    Json agent = {{"tools", Json::array()}};
    agent["tools"].push_back(tool("get_location", "Gets the location of the user."));
    agent["tools"].push_back(tool("get_current_weather",
                                  "Gets the current weather in the provided location.",
                                  Json::parse(R"({"type": "object", "properties": {
        "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
        "format": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"}},
        "required": ["location"]})")));
    agent["tools"].push_back(tool("get_multiple_weathers",
                                  "Gets the current weather in the provided list of locations.",
                                  Json::parse(R"({"type": "object", "properties": {
        "locations": {"type": "array", "items": {"type": "string"},
                      "description": "List of city and state, e.g. [\"San Francisco, CA\", \"New York, NY\"]"},
        "format": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"}},
        "required": ["locations"]})")));
    agent["tools"].push_back(
        tool("kitchensink", "A function with various complex schemas.", Json::parse(R"({
        "description": "params object", "type": "object", "properties": {
        "string": {"type": "string", "title": "STRING", "description": "A string", "examples": ["hello", "world"]},
        "string_nullable": {"type": "string", "nullable": true, "description": "A nullable string", "default": "the default"},
        "string_enum": {"type": "string", "enum": ["a", "b", "c"]},
        "oneof_string_or_number": {"oneOf": [{"type": "string", "default": "default_string_in_oneof"},
                                             {"type": "number", "description": "numbers can happen too"}],
                                   "description": "a oneof", "default": 20}}})")));
    CHECK(render({text(Role::system, "Always respond in riddles"),
                  text(Role::user, "What is the weather like in SF?")},
                 {{"reasoning_effort", "high"}, {"current_date", "2025-06-28"}},
                 agent) == vector_text("test_render_functions_with_parameters.txt"));
}

TEST_CASE("harmony vectors test_no_tools and the built-in tool namespaces", "[harmony][vectors]") {
    const Json date = {{"current_date", "2025-06-28"}};
    CHECK(render({}, date) == vector_text("test_no_tools.txt"));

    Json browser_only = date;
    browser_only["system_tools"] = Json::array({builtin_tools()["browser"]});
    CHECK(render({}, browser_only) == vector_text("test_browser_tool_only.txt"));

    Json browser_python = date;
    browser_python["system_tools"] =
        Json::array({builtin_tools()["browser"], builtin_tools()["python"]});
    CHECK(render({}, browser_python) == vector_text("test_browser_and_python_tool.txt"));

    Json agent = {
        {"tools",
         Json::array(
             {tool("lookup_weather",
                   "Use this tool to lookup the weather in a given location. Call it with the "
                   "parameter 'location', can be any textual description of a location.",
                   Json::parse(R"({"type": "object", "properties": {"location": {"type": "string"}},
                                                              "required": ["location"]})"))})}};
    CHECK(render({}, browser_only, agent) == vector_text("test_browser_and_function_tool.txt"));
}

TEST_CASE("harmony vectors on analysis: dropped by default, kept while ongoing, kept on request",
          "[harmony][vectors]") {
    const Json no_system = {{"system_message", false}};
    std::vector<Message> convo = {
        text(Role::user, "What is 2 + 2?"),
        thinking(
            "User asks: \xE2\x80\x9CWhat is 2 + 2?\xE2\x80\x9D Simple arithmetic. Provide answer."),
        text(Role::assistant, "2 + 2 equals 4.", Channel::final),
        text(Role::user, "What about 9 / 2?")};
    CHECK(render(convo, no_system) == vector_text("test_dropping_cot_by_default.txt"));

    std::vector<Message> preserved = convo;
    preserved[1] = thinking("User asks a simple question: \"What is 2 + 2?\" The answer: 4.");
    Json keep = no_system;
    keep["auto_drop_analysis"] = false;
    CHECK(render(preserved, keep) == vector_text("test_preserve_cot.txt"));

    std::vector<Message> ongoing = {
        text(Role::user, "What is the weather in SF?"),
        thinking("User asks: \xE2\x80\x9CWhat is the weather in SF?\xE2\x80\x9D We need to use "
                 "lookup_weather tool."),
        call("call_1", "lookup_weather", {{"location", "San Francisco"}}),
        result("call_1", "lookup_weather", "{\"temperature\": 20, \"description\": \"sunny\"}")};
    CHECK(render(ongoing, no_system) == vector_text("test_does_not_drop_if_ongoing_analysis.txt"));

    std::vector<Message> between_finals = {
        text(Role::user, "What is 2 + 2?"), text(Role::assistant, "4", Channel::final),
        text(Role::user, "What is 3 + 5?"), thinking("thinking 3+5"),
        text(Role::assistant, "8", Channel::final)};
    Json no_prompt = no_system;
    no_prompt["add_generation_prompt"] = false;
    CHECK(render(between_finals, no_prompt) ==
          vector_text("test_keep_analysis_between_finals.txt"));
}

TEST_CASE("harmony settings come from options before agent.model.options and agent.metadata",
          "[harmony]") {
    Json agent = {{"model", {{"id", "gpt-oss-20b"}, {"options", {{"reasoning_effort", "low"}}}}},
                  {"metadata", {{"reasoning_effort", "high"}, {"current_date", "2030-01-02"}}}};
    std::string out = render({}, Json::object(), agent);
    CHECK(
        out ==
        "<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.\n"
        "Knowledge cutoff: 2024-06\nCurrent date: 2030-01-02\n\nReasoning: low\n\n"
        "# Valid channels: analysis, commentary, final. Channel must be included for every message."
        "<|end|><|start|>assistant");
    CHECK(
        render({},
               {{"harmony", {{"identity", nullptr}, {"reasoning_effort", "high"}}},
                {"knowledge_cutoff", nullptr}},
               agent) ==
        "<|start|>system<|message|>Current date: 2030-01-02\n\nReasoning: high\n\n"
        "# Valid channels: analysis, commentary, final. Channel must be included for every message."
        "<|end|><|start|>assistant");
    CHECK_THROWS_WITH(
        render({}, {{"reasoning_effort", "extreme"}}),
        "harmony option 'reasoning_effort' must be low, medium or high, got 'extreme'");
}

TEST_CASE("harmony to_wire refuses parts it cannot carry and tools that are not functions",
          "[harmony]") {
    Message image(
        Role::user,
        {ContentPart::make(ImageSource{MediaSourceType::url, "https://x/y.png", std::nullopt})});
    CHECK_THROWS_WITH(
        render({text(Role::user, "hi"), image}, Json::object()),
        "harmony: messages[1] (user) has a image part, which the harmony format cannot carry");
    Json agent = {{"tools", Json::array({{{"name", "search"}, {"kind", "mcp"}}})}};
    CHECK_THROWS_WITH(render({}, Json::object(), agent),
                      "harmony: agent.tools[0] ('search') is of kind 'mcp': resolve it to function "
                      "tools before it "
                      "reaches the adapter");
}

TEST_CASE("harmony renders Prompty property lists as TypeScript parameters", "[harmony]") {
    Json agent = {
        {"tools",
         Json::array(
             {{{"name", "get_orders"},
               {"kind", "function"},
               {"description", "Orders of a user"},
               {"parameters",
                Json::array(
                    {{{"name", "user_id"}, {"kind", "string"}, {"required", true}},
                     {{"name", "limit"}, {"kind", "integer"}, {"description", "At most this many"}},
                     {{"name", "status"},
                      {"kind", "string"},
                      {"enumValues", {"open", "closed"}}}})},
               {"bindings", {{"user_id", "u-1"}}}}})}};
    std::string out = render({}, {{"system_message", false}}, agent);
    CHECK(out ==
          "<|start|>developer<|message|># Tools\n\n## functions\n\nnamespace functions {\n\n"
          "// Orders of a user\ntype get_orders = (_: {\n// At most this many\nlimit?: number,\n"
          "status?: \"open\" | \"closed\",\n}) => any;\n\n} // namespace "
          "functions<|end|><|start|>assistant");
}
