// The chatml adapter through the real plugin.
#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>

#include "cmfpipe/cmf.hpp"
#include "cmfpipe/errors.hpp"
#include "support/corpus.hpp"
#include "support/parser_case.hpp"
#include "support/prefix_walk.hpp"
#include "support/registry.hpp"

using namespace cmfpipe::cmf;
using cmfpipe::Json;

namespace {

std::shared_ptr<cmfpipe::Adapter> chatml() {
    return cmfpipe::testing::bundled_plugins().make_adapter("chatml");
}

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string render(const std::vector<Message>& messages, const Json& options,
                   const Json& agent = Json::object()) {
    Json wire = chatml()->to_wire(messages, agent, options);
    REQUIRE(wire.is_string());
    return wire.get<std::string>();
}

std::vector<Message> parse(std::string_view text, const Json& options = Json::object()) {
    return chatml()->from_wire(text, options);
}

Json essentials(const std::vector<Message>& messages) {
    Json out = Json::array();
    for (const auto& m : messages) {
        Json parts = Json::array();
        for (const auto& p : m.content()) parts.push_back(part_to_json(*p));
        out.push_back({{"role", to_string(m.role())}, {"content", parts}});
    }
    return out;
}

Json essential(const Message& m) {
    return essentials({m})[0];
}

bool incomplete(const Message& m) {
    return m.custom() && m.custom()->value("incomplete", false);
}

// An OpenAI-style chat context (corpus/chat-templates/contexts) as CMF.
std::vector<Message> from_context(const Json& context) {
    std::vector<Message> out;
    for (const auto& m : context["messages"]) {
        const Role role = *enum_from_string<Role>(m["role"].get<std::string>());
        Content parts;
        if (role == Role::tool) {
            parts.push_back(ContentPart::make(
                ToolResult{m.value("tool_call_id", ""), m.value("name", ""), m["content"], false}));
        } else {
            if (!m["content"].get<std::string>().empty() || !m.contains("tool_calls"))
                parts.push_back(ContentPart::text(m["content"]));
            for (const auto& tc : m.value("tool_calls", Json::array()))
                parts.push_back(ContentPart::make(ToolCall{
                    tc["id"], tc["function"]["name"], tc["function"]["arguments"], std::nullopt}));
        }
        out.emplace_back(role, std::move(parts));
    }
    return out;
}

const std::string think_and_call =
    "<think>\nThe user wants the weather.\n</think>\n\nLet me check.\n<tool_call>\n"
    "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call><|im_end|>";

}  // namespace

TEST_CASE("chatml renders the ChatML reference vector (OpenHermes template)", "[chatml]") {
    std::vector<Message> messages = {Message::text(Role::system, "You are a helpful assistant"),
                                     Message::text(Role::user, "Hello"),
                                     Message::text(Role::assistant, "Hi there"),
                                     Message::text(Role::user, "Who are you"),
                                     Message::text(Role::assistant, "   I am an assistant   "),
                                     Message::text(Role::user, "Another question")};
    CHECK(render(messages, Json::object()) ==
          "<|im_start|>system\nYou are a helpful "
          "assistant<|im_end|>\n<|im_start|>user\nHello<|im_end|>\n"
          "<|im_start|>assistant\nHi there<|im_end|>\n<|im_start|>user\nWho are you<|im_end|>\n"
          "<|im_start|>assistant\n   I am an assistant   <|im_end|>\n<|im_start|>user\nAnother "
          "question<|im_end|>\n"
          "<|im_start|>assistant\n");
}

TEST_CASE("chatml matches the Qwen2.5 goldens: simple, system, tool use", "[chatml][goldens]") {
    const auto root = cmfpipe::testing::require_corpus("chat-templates");
    const Json qwen = {
        {"default_system", "You are Qwen, created by Alibaba Cloud. You are a helpful assistant."}};
    for (std::string context : {"simple", "system", "tool_use_objargs"}) {
        INFO("context " << context);
        const Json ctx = Json::parse(read_file(root / "contexts" / (context + ".json")));
        Json agent = Json::object();
        if (ctx.contains("tools")) agent["tools"] = ctx["tools"];
        CHECK(render(from_context(ctx), qwen, agent) ==
              read_file(root / "goldens" / ("Qwen-Qwen2.5-7B-Instruct." + context + ".txt")));
    }
}

TEST_CASE("chatml Hermes convention: one tool turn per result, Prompty tools listed", "[chatml]") {
    std::vector<Message> messages = {
        Message::text(Role::user, "Weather?"),
        Message(Role::assistant, {ContentPart::make(ToolCall{
                                     "c1", "get_weather", {{"city", "Paris"}}, std::nullopt})}),
        Message(Role::tool, {ContentPart::make(ToolResult{"c1", "get_weather", "sunny", false})}),
        Message(Role::tool,
                {ContentPart::make(ToolResult{"c2", "get_time", Json{{"h", 9}}, false})})};
    Json agent = {{"tools", Json::array({{{"name", "get_weather"},
                                          {"kind", "function"},
                                          {"description", "Weather of a city"},
                                          {"parameters", Json::array({{{"name", "city"},
                                                                       {"kind", "string"},
                                                                       {"required", true}}})}}})}};
    CHECK(render(messages, {{"convention", "hermes"}, {"enable_thinking", false}}, agent) ==
          "<|im_start|>system\n# Tools\n\nYou may call one or more functions to assist with the "
          "user query.\n\n"
          "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
          "{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"description\": "
          "\"Weather of a city\", "
          "\"parameters\": {\"type\": \"object\", \"properties\": {\"city\": {\"type\": "
          "\"string\"}}, \"required\": [\"city\"]}}}\n"
          "</tools>\n\nFor each function call, return a json object with function name and "
          "arguments within "
          "<tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, "
          "\"arguments\": <args-json-object>}\n"
          "</"
          "tool_call><|im_end|>\n<|im_start|>user\nWeather?<|im_end|>\n<|im_start|>assistant\n<"
          "tool_call>\n"
          "{\"name\": \"get_weather\", \"arguments\": {\"city\": "
          "\"Paris\"}}\n</tool_call><|im_end|>\n"
          "<|im_start|>tool\n<tool_response>\nsunny\n</tool_response><|im_end|>\n"
          "<|im_start|>tool\n<tool_response>\n{\"h\": 9}\n</tool_response><|im_end|>\n"
          "<|im_start|>assistant\n<think>\n\n</think>\n\n");
}

TEST_CASE("chatml parses thinking, text and tool calls of a completion", "[chatml]") {
    auto messages = parse(think_and_call);
    REQUIRE(messages.size() == 1);
    CHECK(essentials(messages) == Json::parse(R"([{"role": "assistant", "content": [
        {"content_type": "thinking", "text": "The user wants the weather."},
        {"content_type": "text", "text": "Let me check."},
        {"content_type": "tool_call", "content": {"tool_call_id": "call_1", "name": "get_weather",
         "arguments": {"city": "Paris"}, "namespace": null}}]}])"));
    CHECK(messages[0].completion()->stop_reason == StopReason::end);
    CHECK(messages[0].completion()->raw_format == "chatml");
    CHECK(messages[0].custom() == nullptr);
    // The prompt opened the think block (enable_thinking): the completion starts inside it.
    auto opened = parse("Hmm, Paris.\n</think>\n\nIt is sunny.",
                        {{"enable_thinking", true}, {"complete", true}});
    CHECK(essentials(opened) == Json::parse(R"([{"role": "assistant", "content": [
        {"content_type": "thinking", "text": "Hmm, Paris."}, {"content_type": "text", "text": "It is sunny."}]}])"));
}

TEST_CASE("chatml every prefix of a completion parses, the cut message flagged incomplete",
          "[chatml][prefix]") {
    const Json full = essentials(parse(think_and_call));
    // No prefix reaches the <|im_end|>: each is one message, flagged incomplete.
    cmfpipe::testing::PrefixWalk walk{[](const std::string& t) { return parse(t); }, essential, {}};
    walk.more = [&](const std::string&, const std::vector<Message>& messages) {
        REQUIRE(messages.size() == 1);
        // What was parsed is the start of the whole result: finished parts equal, the last one a
        // prefix.
        const Json got = essentials(messages)[0]["content"];
        REQUIRE(got.size() <= full[0]["content"].size());
        for (std::size_t i = 0; i + 1 < got.size(); ++i) CHECK(got[i] == full[0]["content"][i]);
        if (!got.empty()) {
            const Json& last = got.back();
            const Json& whole = full[0]["content"][got.size() - 1];
            if (last.contains("text"))
                CHECK(whole["text"].get<std::string>().rfind(last["text"].get<std::string>(), 0) ==
                      0);
            else
                CHECK(last == whole);
        }
    };
    cmfpipe::testing::walk_prefixes(think_and_call, walk);
}

TEST_CASE("chatml keeps an unfinished tool call in custom.pending", "[chatml][prefix]") {
    auto messages = parse("Checking.<tool_call>\n{\"name\": \"get_wea");
    REQUIRE(messages.size() == 1);
    CHECK(
        essentials(messages) ==
        Json::parse(
            R"([{"role": "assistant", "content": [{"content_type": "text", "text": "Checking."}]}])"));
    CHECK(*messages[0].custom() ==
          Json::parse(R"({"incomplete": true, "pending": "<tool_call>\n{\"name\": \"get_wea"})"));
    auto half_tag = parse("Checking.<tool_ca");
    CHECK(*half_tag[0].custom() == Json::parse(R"({"incomplete": true, "pending": "<tool_ca"})"));
}

TEST_CASE("chatml flags a finished tool call that is not valid JSON, keeping its text",
          "[chatml][malformed]") {
    auto messages = parse("Ok.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {x}}\n</tool_call>",
                          {{"complete", true}});
    REQUIRE(messages.size() == 1);
    CHECK(essentials(messages) == Json::parse(R"([{"role": "assistant", "content": [
        {"content_type": "text", "text": "Ok."},
        {"content_type": "text", "text": "<tool_call>\n{\"name\": \"f\", \"arguments\": {x}}\n</tool_call>"}]}])"));
    const Json& errors = (*messages[0].custom())["parse_errors"];
    REQUIRE(errors.size() == 1);
    CHECK(errors[0]["line"] == 3);
    CHECK(errors[0]["column"] == 29);
    CHECK(errors[0]["message"].get<std::string>().rfind("a tool call is not valid JSON: ", 0) == 0);
    auto no_name = parse("<tool_call>{\"arguments\": {}}</tool_call>", {{"complete", true}});
    CHECK((*no_name[0].custom())["parse_errors"][0]["message"] ==
          "a tool call must be a JSON object with a string \"name\"");
}

TEST_CASE("chatml raises ValueError with line and column for text outside a turn",
          "[chatml][malformed]") {
    CHECK_THROWS_WITH(
        parse("<|im_start|>user\nhi<|im_end|>\n oops"),
        "completion:3:2: chatml: expected <|im_start|> to begin a turn, found 'oops'");
    CHECK_THROWS_WITH(parse("<|im_start|>robot\nhi<|im_end|>", {{"source", "x.txt"}}),
                      "x.txt:1:13: chatml: unknown role 'robot' in a turn header");
}

TEST_CASE("chatml round trip keeps every part (Qwen and Hermes conventions)",
          "[chatml][roundtrip]") {
    const std::vector<Message> original = {
        Message::text(Role::system, "Be brief."),
        Message::text(Role::user, "Weather in Paris?"),
        Message(Role::assistant, {ContentPart::thinking("Use the tool."),
                                  ContentPart::make(ToolCall{
                                      "call_1", "get_weather", {{"city", "Paris"}}, std::nullopt}),
                                  ContentPart::make(ToolCall{
                                      "call_2", "get_time", {{"city", "Paris"}}, std::nullopt})}),
        Message(Role::tool,
                {ContentPart::make(ToolResult{"call_1", "get_weather", "{\"temp\": 18}", false})}),
        Message(Role::tool, {ContentPart::make(ToolResult{"call_2", "get_time", "09:00", false})}),
        Message(Role::assistant, {ContentPart::text("18 degrees at nine.")})};
    for (std::string convention : {"qwen", "hermes"}) {
        INFO("convention " << convention);
        const Json options = {{"convention", convention}, {"add_generation_prompt", false}};
        Json wire = chatml()->to_wire(original, Json::object(), options);
        auto back = chatml()->from_wire(wire.get<std::string>(), options);
        Json want = essentials(original);
        if (convention == "qwen") {  // Qwen writes consecutive results as one turn
            want[3]["content"].push_back(want[4]["content"][0]);
            want.erase(4);
        }
        CHECK(essentials(back) == want);
        for (const auto& m : back) CHECK_FALSE(incomplete(m));
    }
}

TEST_CASE("chatml parses the ChatML/Hermes/Qwen outputs of llama.cpp's parser tests",
          "[chatml][llama.cpp]") {
    const Json cases = Json::parse(
        read_file(cmfpipe::testing::require_corpus("output-parsing") / "parser-cases.json"));
    int checked = 0;
    for (const auto& c : cases["cases"]) {
        const std::string tmpl = c["template"];
        if (tmpl.find("Hermes") == std::string::npos &&
            tmpl.find("Qwen-QwQ") == std::string::npos && tmpl.find("Qwen2.5") == std::string::npos)
            continue;
        if (c["opts"].contains("messages")) continue;  // prefilled turns depend on the prompt
        const std::string input = c["input"];
        INFO("input: " << input);
        Json options = {{"complete", c["opts"].value("is_partial", "") != "true"}};
        if (c["opts"].value("enable_thinking", "") == "true") options["enable_thinking"] = true;
        CHECK(cmfpipe::testing::parsed_summary(parse(input, options)) ==
              cmfpipe::testing::expected_summary(c["expect"]));
        ++checked;
    }
    CHECK(checked == 6);
}

TEST_CASE("chatml every prefix of a whole conversation parses without an error",
          "[chatml][prefix]") {
    const std::vector<Message> convo = {
        Message::text(Role::system, "Be brief."), Message::text(Role::user, "Weather?"),
        Message(Role::assistant,
                {ContentPart::thinking("Tool."),
                 ContentPart::make(
                     ToolCall{"call_1", "get_weather", {{"city", "Paris"}}, std::nullopt})}),
        Message(Role::tool,
                {ContentPart::make(ToolResult{"call_1", "get_weather", "sunny", false})}),
        Message::text(Role::assistant, "Sunny.")};
    const std::string text = render(convo, {{"add_generation_prompt", false}});
    cmfpipe::testing::walk_prefixes(
        text,
        {[](const std::string& t) { return parse(t); }, essential, {"<|im_end|>", "<|im_end|>\n"}});
}
