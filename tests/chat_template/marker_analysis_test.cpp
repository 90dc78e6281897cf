// Markers derived less narrowly (issue 28, point 3). The fixtures (tests/chat_template/fixtures/
// markers/*.jinja, written for these tests) lay out calls as real families do:
//   a. a call's type word and a separator between the per-call marker and the name (DeepSeek V3):
//      the name's prefix is everything between them;
//   b. a calls turn that opens the tool's response instead of ending as a text turn (Gemma 4):
//      that opener is what the template writes after the calls, not a call marker;
//   c. the call's id right after the per-call opener: the opener is not required twice;
//   d. each JSON call in tags of its own (Hermes): a second call written without repeating the
//      tag, one object after another or in a list, is still a call;
//   e. the turn's header markers written with other whitespace before calls than before text
//      (DeepSeek V3.1, Llama 4's JSON template): the call section is what differs beyond that
//      whitespace, not the header;
//   f. the whole section written once per call (InternLM2): the sections that follow one another
//      hold the calls of one turn;
//   g. JSON calls without markers, a comma between them and no list's brackets (Phi-4-mini);
//   h. JSON calls without markers written right after the text, on its line (Llama 4's JSON
//      template): a call there need not start a line, where the template writes it so;
//   i. a token written before each marker of the calls (MiniMax M3): the calls are read without it.
// Shown: the exact analysis, and completions a model writes read back to exact parts.
#include <catch2/catch.hpp>

#include "chat_template_support.hpp"
#include "diff_split.hpp"
#include "template_analysis.hpp"

namespace {

using cmfpipe::Json;
using namespace cmfpipe::chat_template;
using namespace cmfpipe::testing;

const Json marker_tools = cmfpipe::parse_json(R"([
    {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
      "properties": {"city": {"type": "string"}}}}},
    {"type": "function", "function": {"name": "get_time", "parameters": {"type": "object",
      "properties": {"zone": {"type": "string"}}}}}])",
                                              "tools");

std::string marker_fixture(const std::string& name) {
    return read_bytes(chat_template_test_dir / "fixtures" / "markers" / (name + ".jinja"));
}

ToolAnalysis marker_analysis(const std::string& name) {
    static const auto renderer = bundled_plugins().make_renderer("jinja2");
    AnalysisInputs inputs;
    inputs.template_text = marker_fixture(name);
    return analyze_template(*renderer, inputs).tools;
}

// The parts of the parsed turn: {"text": ...} and {"call": NAME, "arguments": {...}} (with
// "id" where the call has one), in order.
Json marker_parse(const std::string& fixture, const std::string& completion, bool partial = false) {
    static const auto adapter = chat_template_adapter();
    Json options = prompt_options(Json::object(), marker_fixture(fixture), fixture + ".jinja");
    options["tools"] = marker_tools;
    options["partial"] = partial;
    Json out = Json::array();
    for (const auto& message : adapter->from_wire(completion, options)) {
        for (const auto& part : message.content()) {
            if (const auto* text = part->get_if<cmfpipe::cmf::Text>()) {
                out.push_back({{"text", text->text}});
            } else if (const auto* call = part->get_if<cmfpipe::cmf::ToolCall>()) {
                Json item = {{"call", call->name}, {"arguments", call->arguments}};
                if (!call->tool_call_id.empty()) item["id"] = call->tool_call_id;
                out.push_back(std::move(item));
            }
        }
    }
    return out;
}

// The assistant turn the fixture renders for text and two calls (through to_wire: the whole
// conversation after what it shares with the prompt), read back by from_wire with that prompt.
Json marker_round_trip(const std::string& fixture) {
    static const auto adapter = chat_template_adapter();
    const auto conversation = [](bool with_answer) {
        Json question = {{"content_type", "text"}, {"text", "Weather in Oslo and Paris?"}};
        Json messages = Json::array();
        messages.push_back(Json{{"role", "user"}, {"content", Json::array({question})}});
        if (with_answer) {
            Json content = Json::array();
            content.push_back(Json{{"content_type", "text"}, {"text", "Checking."}});
            for (const auto& [id, city] : {std::pair{"call_1", "Oslo"}, {"call_2", "Paris"}}) {
                Json call = {{"tool_call_id", id}, {"name", "get_weather"}};
                call["arguments"] = Json{{"city", city}};
                content.push_back(Json{{"content_type", "tool_call"}, {"content", call}});
            }
            messages.push_back(Json{{"role", "assistant"}, {"content", content}});
        }
        return cmfpipe::cmf::messages_from_json(messages);
    };
    const Json agent = {{"tools", marker_tools}};
    const Json options =
        prompt_options(Json::object(), marker_fixture(fixture), fixture + ".jinja");
    Json whole_options = options;
    whole_options["add_generation_prompt"] = false;
    const std::string whole =
        adapter->to_wire(conversation(true), agent, whole_options).get<std::string>();
    const std::string prompt =
        adapter->to_wire(conversation(false), agent, options).get<std::string>();
    std::size_t shared = 0;
    while (shared < prompt.size() && shared < whole.size() && prompt[shared] == whole[shared])
        ++shared;
    Json parse_options = options;
    parse_options["tools"] = marker_tools;
    parse_options["prompt"] = whole.substr(0, shared);
    Json out = Json::array();
    for (const auto& message : adapter->from_wire(whole.substr(shared), parse_options)) {
        for (const auto& part : message.content()) {
            if (const auto* text = part->get_if<cmfpipe::cmf::Text>()) {
                out.push_back({{"text", text->text}});
            } else if (const auto* call = part->get_if<cmfpipe::cmf::ToolCall>()) {
                Json item = {{"call", call->name}, {"arguments", call->arguments}};
                if (!call->tool_call_id.empty()) item["id"] = call->tool_call_id;
                out.push_back(std::move(item));
            }
        }
    }
    return out;
}

Json weather_call(const char* city) {
    return {{"call", "get_weather"}, {"arguments", {{"city", city}}}};
}

}  // namespace

TEST_CASE("markers: the function name's prefix is all that stands after the per-call marker",
          "[chat_template][markers]") {
    const ToolAnalysis t = marker_analysis("name_after_call_type");
    CHECK(t.format == ToolFormat::tag_with_json);
    CHECK(t.section_start == "<|calls_begin|>");
    CHECK(t.per_call_start == "<|call_begin|>");
    CHECK(t.name_prefix == "function<|sep|>");
    CHECK(t.name_suffix == "```json");
    CHECK(t.function_close == "```");
    CHECK(t.per_call_end == "<|call_end|>");
    CHECK(t.section_end == "<|calls_end|>");
    const std::string call =
        "<|call_begin|>function<|sep|>get_weather\n```json\n"
        "{\"city\": \"Oslo\"}\n```<|call_end|>";
    CHECK(
        marker_parse("name_after_call_type", "Checking.<|calls_begin|>" + call + "<|calls_end|>") ==
        Json::array({{{"text", "Checking."}}, weather_call("Oslo")}));
    // Two calls.
    CHECK(marker_parse("name_after_call_type", "<|calls_begin|>" + call + call + "<|calls_end|>") ==
          Json::array({weather_call("Oslo"), weather_call("Oslo")}));
}

TEST_CASE("markers: a number before the function name is no part of its prefix",
          "[chat_template][markers]") {
    // The first call's "0<|sep|>" is not what the second writes ("1<|sep|>").
    const ToolAnalysis t = marker_analysis("numbered_before_name");
    CHECK(t.per_call_start == "<|call_begin|>");
    CHECK(t.name_prefix.empty());
}

TEST_CASE("markers: what a calls turn writes after its calls is not a call marker",
          "[chat_template][markers]") {
    const ToolAnalysis t = marker_analysis("turn_after_calls");
    CHECK(t.format == ToolFormat::tag_with_json);
    CHECK(t.section_start.empty());
    CHECK(t.section_end.empty());
    CHECK(t.per_call_start == "<call>");
    CHECK(t.per_call_end == "</call>");
    CHECK(t.function_close.empty());
    CHECK(t.after_calls == "<tool_response>");
    // Two calls, then the tool's response opened: the calls end where it begins.
    CHECK(marker_parse("turn_after_calls",
                       "<call>get_weather{\"city\": \"Oslo\"}</call><call>get_time{\"zone\": "
                       "\"CET\"}</call><tool_response>") ==
          Json::array(
              {weather_call("Oslo"), {{"call", "get_time"}, {"arguments", {{"zone", "CET"}}}}}));
    // A model that stops after its calls.
    CHECK(marker_parse("turn_after_calls", "<call>get_weather{\"city\": \"Oslo\"}</call>") ==
          Json::array({weather_call("Oslo")}));
}

TEST_CASE("markers: a section's end that stands last in a calls turn stays the section's end",
          "[chat_template][markers]") {
    // The text turn ends with <|end|>, the calls turn with </tool_calls>: that closes <tool_calls>.
    const ToolAnalysis t = marker_analysis("section_end_last");
    CHECK(t.format == ToolFormat::json_native);
    CHECK(t.section_start == "<tool_calls>");
    CHECK(t.section_end == "</tool_calls>");
    CHECK(t.after_calls.empty());
    CHECK(marker_parse("section_end_last",
                       "<tool_calls>[{\"name\": \"get_weather\", \"arguments\": {\"city\": "
                       "\"Oslo\"}}]</tool_calls>") == Json::array({weather_call("Oslo")}));
}

TEST_CASE("markers: a call id whose prefix is the per-call opener needs the opener once",
          "[chat_template][markers]") {
    const ToolAnalysis t = marker_analysis("id_after_call_opener");
    CHECK(t.per_call_start == "<|call|>");
    CHECK(t.id_position == CallIdPosition::pre_function_name);
    CHECK(t.id_prefix == "<|call|>");
    CHECK(t.id_suffix == "<|name|>");
    CHECK(t.name_suffix == "<|args|>");
    Json first = weather_call("Oslo");
    first["id"] = "call_1";
    Json second = {{"call", "get_time"}, {"arguments", {{"zone", "CET"}}}, {"id", "call_2"}};
    CHECK(marker_parse("id_after_call_opener",
                       "<|calls|><|call|>call_1<|name|>get_weather<|args|>{\"city\": "
                       "\"Oslo\"}<|call_end|><|call|>call_2<|name|>get_time<|args|>{\"zone\": "
                       "\"CET\"}<|call_end|><|calls_end|>") == Json::array({first, second}));
}

TEST_CASE("markers: a second JSON call without its own opener is still a call",
          "[chat_template][markers]") {
    const ToolAnalysis t = marker_analysis("json_call_each_tagged");
    CHECK(t.format == ToolFormat::json_native);
    CHECK(t.per_call_start == "<tool_call>");
    CHECK(t.per_call_end == "</tool_call>");
    const Json oslo = weather_call("Oslo"), paris = weather_call("Paris");
    const std::string a = "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}";
    const std::string b = "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}";
    // One object after another, on lines of their own, with a comma, in a list.
    for (const std::string& calls :
         {a + b, a + "\n" + b, a + ",\n" + b, "[" + a + ", " + b + "]"}) {
        INFO(calls);
        CHECK(marker_parse("json_call_each_tagged", "<tool_call>\n" + calls + "\n</tool_call>") ==
              Json::array({oslo, paris}));
    }
    // The tag repeated still reads as before, and text after the calls stays text.
    CHECK(marker_parse("json_call_each_tagged",
                       "<tool_call>\n" + a + "\n</tool_call>\n<tool_call>\n" + b +
                           "\n</tool_call>") == Json::array({oslo, paris}));
    CHECK(marker_parse("json_call_each_tagged",
                       "<tool_call>\n" + a + "\n</tool_call>\n{not a call}") ==
          Json::array({{{"text", "{not a call}"}}, oslo}));
    // Cut off inside the second object: the first call stands, the second is not shown yet.
    CHECK(marker_parse("json_call_each_tagged",
                       "<tool_call>\n" + a + "\n{\"name\": \"get_weather\", \"argu", true)
              .at(0) == oslo);
}

TEST_CASE("markers: each fixture's own rendering of text and two calls reads back",
          "[chat_template][markers]") {
    // The turn the template renders (to_wire), parsed with its prompt: the text and both calls,
    // with their ids where the template writes them.
    const Json oslo = weather_call("Oslo"), paris = weather_call("Paris");
    Json oslo_id = oslo, paris_id = paris;
    oslo_id["id"] = "call_1";
    paris_id["id"] = "call_2";
    const Json text = {{"text", "Checking."}};
    CHECK(marker_round_trip("name_after_call_type") == Json::array({text, oslo, paris}));
    CHECK(marker_round_trip("turn_after_calls") == Json::array({text, oslo, paris}));
    CHECK(marker_round_trip("id_after_call_opener") == Json::array({text, oslo_id, paris_id}));
    CHECK(marker_round_trip("json_call_each_tagged") == Json::array({text, oslo, paris}));
    CHECK(marker_round_trip("section_end_last") == Json::array({oslo, paris}));
}

TEST_CASE(
    "markers: the diff that finds a call section passes over whitespace around shared "
    "markers",
    "[chat_template][markers]") {
    const auto split = [](std::string_view a, std::string_view b) {
        const DiffSplit d = marker_diff_split(a, b);
        return Json::array({d.prefix, d.left, d.right, d.suffix});
    };
    // Text turn vs calls turn with the header's whitespace moved: only the text and the calls
    // differ (the plain diff would begin at <|answer|>).
    CHECK(split("<|a|>  <|answer|>\nTEXT<|end|>",
                "<|a|><|answer|>  <|calls|>C<|calls_end|><|end|>") ==
          Json::array({"<|a|>  <|answer|>\n", "TEXT", "<|calls|>C<|calls_end|>", "<|end|>"}));
    CHECK(diff_split("<|a|>  <|answer|>\nTEXT<|end|>",
                     "<|a|><|answer|>  <|calls|>C<|calls_end|><|end|>")
              .left == "  <|answer|>\nTEXT");
    // A newline before the shared header in one render only.
    CHECK(split("Q<|eot|><|start|>x\nTEXT\n<|eot|>", "Q<|eot|>\n<|start|>x\n{}\n<|eot|>") ==
          Json::array({"Q<|eot|><|start|>x\n", "TEXT", "{}", "\n<|eot|>"}));
    // The same at the end: whitespace before a shared closing marker.
    CHECK(split("<s>A  </s>", "<s>B</s>") == Json::array({"<s>", "A", "B", "  </s>"}));
    // Whitespace that no marker stands next to stays a difference, as in diff_split.
    CHECK(split("a  b", "a b") == Json::array({"a ", " ", "", "b"}));
    CHECK(split("x <y", "x  <z") == Json::array({"x ", "<y", " <z", ""}));
    CHECK(split("same", "same") == Json::array({"same", "", "", ""}));
}

TEST_CASE("markers: header markers spaced otherwise in a turn of calls are no call markers",
          "[chat_template][markers]") {
    const TemplateAnalysis tagged = [] {
        static const auto renderer = bundled_plugins().make_renderer("jinja2");
        AnalysisInputs inputs;
        inputs.template_text = marker_fixture("spaced_header_tagged_calls");
        return analyze_template(*renderer, inputs);
    }();
    CHECK(tagged.content.mode == ContentMode::plain);
    CHECK(tagged.content.turn_end == "<|end|>");
    const ToolAnalysis& t = tagged.tools;
    CHECK(t.format == ToolFormat::tag_with_json);
    CHECK(t.section_start == "<|calls|>");
    CHECK(t.section_end == "<|calls_end|>");
    CHECK(t.per_call_start == "<|call|>");
    CHECK(t.per_call_end == "<|call_end|>");
    CHECK(t.name_prefix.empty());
    CHECK(t.name_suffix == "<|sep|>");
    const Json oslo = weather_call("Oslo");
    const Json time = {{"call", "get_time"}, {"arguments", {{"zone", "CET"}}}};
    CHECK(marker_parse("spaced_header_tagged_calls",
                       "  Checking.<|calls|><|call|>get_weather<|sep|>{\"city\": "
                       "\"Oslo\"}<|call_end|><|call|>get_time<|sep|>{\"zone\": "
                       "\"CET\"}<|call_end|>  <|calls_end|><|end|>") ==
          Json::array({{{"text", "Checking."}}, oslo, time}));
    CHECK(marker_parse("spaced_header_tagged_calls", "\nJust text.<|end|>") ==
          Json::array({{{"text", "Just text."}}}));

    const ToolAnalysis json = marker_analysis("spaced_header_json_calls");
    CHECK(json.format == ToolFormat::json_native);
    CHECK(json.section_start.empty());
    CHECK(json.per_call_start.empty());
    CHECK(json.name_field == "name");
    CHECK(json.arguments_field == "parameters");
    CHECK(marker_parse(
              "spaced_header_json_calls",
              "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Oslo\"}}\n<|eot|>") ==
          Json::array({oslo}));
}

TEST_CASE("markers: templates that space their header otherwise before calls read back",
          "[chat_template][markers]") {
    const Json oslo = weather_call("Oslo"), paris = weather_call("Paris");
    CHECK(marker_round_trip("spaced_header_tagged_calls") ==
          Json::array({{{"text", "Checking."}}, oslo, paris}));
}

TEST_CASE("markers: a section written once per call holds the calls of one turn",
          "[chat_template][markers]") {
    const ToolAnalysis t = marker_analysis("section_per_call");
    CHECK(t.format == ToolFormat::json_native);
    CHECK(t.section_start == "<|action|>");
    CHECK(t.section_end == "<|action_end|>");
    CHECK(t.per_call_start == "<|tool|>");
    const Json oslo = weather_call("Oslo"), paris = weather_call("Paris");
    const std::string a =
        "<|action|><|tool|>\n{\"name\": \"get_weather\", \"arguments\": "
        "{\"city\": \"Oslo\"}}<|action_end|>";
    const std::string b =
        "<|action|><|tool|>\n{\"name\": \"get_weather\", \"arguments\": "
        "{\"city\": \"Paris\"}}<|action_end|>";
    CHECK(marker_parse("section_per_call", a + b + "<|end|>") == Json::array({oslo, paris}));
    CHECK(marker_parse("section_per_call", a + "\n" + b) == Json::array({oslo, paris}));
    // Text after the sections stays text; a section that holds no call is text too.
    CHECK(marker_parse("section_per_call", a + b + " Done.") ==
          Json::array({{{"text", "Done."}}, oslo, paris}));
    CHECK(marker_parse("section_per_call", a + "<|action|>nothing<|action_end|>") ==
          Json::array({{{"text", "<|action|>nothing<|action_end|>"}}, oslo}));
    // In a stream, the second section cut off inside its call: the first call stands.
    CHECK(marker_parse("section_per_call",
                       a + "<|action|><|tool|>\n{\"name\": \"get_weather\", \"argu",
                       true) == Json::array({oslo}));
    CHECK(marker_round_trip("section_per_call") ==
          Json::array({{{"text", "Checking."}}, oslo, paris}));
}

TEST_CASE("markers: JSON calls with a comma between them and no list brackets",
          "[chat_template][markers]") {
    const ToolAnalysis t = marker_analysis("comma_separated_calls");
    CHECK(t.format == ToolFormat::json_native);
    CHECK(t.section_start.empty());
    CHECK(t.per_call_start.empty());
    CHECK_FALSE(t.calls_in_array);
    const Json oslo = weather_call("Oslo"), paris = weather_call("Paris");
    const std::string a = "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}";
    const std::string b = "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}";
    for (const std::string& calls : {a + "," + b, a + ", " + b, a + ",\n" + b, a + b}) {
        INFO(calls);
        CHECK(marker_parse("comma_separated_calls", calls + "<|end|>") ==
              Json::array({oslo, paris}));
    }
    // In a stream, a comma after a call waits for what follows it.
    CHECK(marker_parse("comma_separated_calls", a + ",", true) == Json::array({oslo}));
    CHECK(marker_parse("comma_separated_calls", a + ", ", true) == Json::array({oslo}));
    // An object after the comma that is no call ends the calls: it is text.
    CHECK(marker_parse("comma_separated_calls", a + ", {\"city\": \"Paris\"}") ==
          Json::array({{{"text", ", {\"city\": \"Paris\"}"}}, oslo}));
    CHECK(marker_round_trip("comma_separated_calls") ==
          Json::array({{{"text", "Checking."}}, oslo, paris}));
}

TEST_CASE("markers: a JSON call the template writes right after the text need not start a line",
          "[chat_template][markers]") {
    const Json oslo = weather_call("Oslo"), paris = weather_call("Paris");
    const std::string a = "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Oslo\"}}";
    const std::string b = "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}";
    CHECK(marker_analysis("spaced_header_json_calls").calls_follow_text);
    CHECK(marker_parse("spaced_header_json_calls", "Checking." + a + b + "\n<|eot|>") ==
          Json::array({{{"text", "Checking."}}, oslo, paris}));
    // JSON in the text that is no call stays text.
    CHECK(marker_parse("spaced_header_json_calls", "See {\"city\": \"Oslo\"} here.<|eot|>") ==
          Json::array({{{"text", "See {\"city\": \"Oslo\"} here."}}}));
    CHECK(marker_round_trip("spaced_header_json_calls") ==
          Json::array({{{"text", "Checking."}}, oslo, paris}));
    // A template that starts its calls on a line of their own: a call glued to text is text.
    CHECK_FALSE(marker_analysis("comma_separated_calls").calls_follow_text);
    const std::string c = "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}";
    CHECK(marker_parse("comma_separated_calls", "Checking." + c) ==
          Json::array({{{"text", "Checking." + c}}}));
    CHECK(marker_parse("comma_separated_calls", "Checking.\n" + c) ==
          Json::array({{{"text", "Checking."}}, oslo}));
}

TEST_CASE("markers: a token the template writes before each call marker is read past",
          "[chat_template][markers]") {
    const ToolAnalysis t = marker_analysis("filler_between_markers");
    CHECK(t.marker_filler == "/~/");
    CHECK(t.format == ToolFormat::tag_with_tagged);
    CHECK(t.section_start == "<calls>");
    CHECK(t.section_end == "</calls>");
    CHECK(t.name_prefix == "<invoke name=\"");
    CHECK(t.name_suffix == "\">");
    CHECK(t.argument_name_prefix == "<parameter name=\"");
    CHECK(t.argument_value_suffix == "</parameter>");
    CHECK(t.function_close == "</invoke>");
    const Json oslo = weather_call("Oslo"), paris = weather_call("Paris");
    const std::string call =
        "/~/<invoke name=\"get_weather\">/~/<parameter name=\"city\">Oslo"
        "/~/</parameter>/~/</invoke>\n";
    CHECK(marker_parse("filler_between_markers", "Checking./~/<calls>\n" + call + "/~/</calls>") ==
          Json::array({{{"text", "Checking."}}, oslo}));
    // Written without the token, the calls read the same.
    CHECK(marker_parse("filler_between_markers",
                       "<calls><invoke name=\"get_weather\"><parameter name=\"city\">Oslo"
                       "</parameter></invoke></calls>") == Json::array({oslo}));
    // In a stream, a token cut off at the end is held back.
    CHECK(marker_parse("filler_between_markers", "Checking./~", true) ==
          Json::array({{{"text", "Checking."}}}));
    // The token is taken out of the whole turn, text included (it is the template's, not text).
    CHECK(marker_parse("filler_between_markers", "a/~/b") == Json::array({{{"text", "ab"}}}));
    CHECK(marker_round_trip("filler_between_markers") ==
          Json::array({{{"text", "Checking."}}, oslo, paris}));
    // A template without such a token has none.
    CHECK(marker_analysis("section_per_call").marker_filler.empty());
    CHECK(marker_analysis("spaced_header_tagged_calls").marker_filler.empty());
}
