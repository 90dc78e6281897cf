// harmony from_wire: the text parse vectors of openai/harmony, gpt-oss outputs from llama.cpp's
// parser tests, every prefix of a completion, and malformed input.
#include <catch2/catch.hpp>

#include "adapter_access.hpp"
#include "cmfpipe/errors.hpp"
#include "support/corpus.hpp"
#include "support/parser_case.hpp"
#include "support/prefix_walk.hpp"

using namespace harmony_test;

namespace {

std::vector<Message> parse(std::string_view text, const Json& options = Json::object()) {
    return adapter()->from_wire(text, options);
}

Json essential(const Message& m) {
    return essentials({m})[0];
}

const std::vector<std::string> harmony_stops = {"<|end|>", "<|call|>"};

std::string corpus_text(const std::string& name) {
    std::string text = read_file((cmfpipe::testing::require_corpus("harmony") / name).string());
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
}

const std::string weather_completion =
    "<|channel|>analysis<|message|>Need the weather.<|end|>"
    "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>"
    "{\"city\": \"Tokyo\"}<|call|>"
    "<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>{\"temp\": "
    "21}<|end|>"
    "<|start|>assistant<|channel|>final<|message|>It is 21 degrees.<|return|>";

}  // namespace

TEST_CASE("harmony parse vector test_streamable_parser gives its three messages",
          "[harmony][vectors]") {
    auto messages = parse(corpus_text("test_streamable_parser.txt"));
    REQUIRE(messages.size() == 3);
    CHECK(essentials(messages) == Json::parse(R"([
      {"role": "assistant", "channel": "analysis", "content": [{"content_type": "thinking", "text":
        "User asks \"Who is the current US president?\" It's 2025, presumably current president is Joe Biden? Actually as of 2025-07-28, there was a 2024 election. In 2024, President is probably President Biden still? But w\ne need up to date info. Let's browse to confirm."}]},
      {"role": "assistant", "channel": "commentary", "content": [{"content_type": "tool_call", "content":
        {"tool_call_id": "call_1", "name": "search", "arguments": {"query": "current US president July 2025", "topn": 10, "source": "news"},
         "namespace": "browser"}}]},
      {"role": "tool", "channel": "commentary", "content": [{"content_type": "tool_result", "content":
        {"tool_call_id": "call_1", "tool_name": "browser.search", "content": "{\"result\": \"https://openai.com/\"}", "is_error": false}}]}
    ])"));
    CHECK(*custom_of(messages[1]) == Json::parse(R"({"harmony": {"content_type": "code"}})"));
    CHECK(*custom_of(messages[2]) == Json::parse(R"({"harmony": {"recipient": "assistant"}})"));
    CHECK(messages[0].completion()->stop_reason == StopReason::end);
    CHECK(messages[1].completion()->stop_reason == StopReason::call);
    CHECK(messages[1].completion()->raw_format == "harmony");
    CHECK(messages[2].completion() == nullptr);
}

TEST_CASE("harmony parse vector test_tool_response_parsing (role given by the text)",
          "[harmony][vectors]") {
    const std::string text = corpus_text("test_tool_response_parsing.txt");
    auto whole = parse(text, {{"role", nullptr}, {"complete", true}});
    REQUIRE(whole.size() == 1);
    CHECK(essentials(whole) ==
          Json::parse(R"([{"role": "tool", "channel": "commentary", "content": [
        {"content_type": "tool_result", "content": {"tool_call_id": "", "tool_name": "browser.search",
         "content": "{\"result\": \"https://openai.com/\"}", "is_error": false}}]}])"));
    CHECK(*custom_of(whole[0]) == Json::parse(R"({"harmony": {"recipient": "assistant"}})"));
    // Without `complete`, a message with no <|end|> is a cut stream: same content, flagged.
    auto cut = parse(text, {{"role", nullptr}});
    CHECK(essentials(cut) == essentials(whole));
    CHECK(incomplete(cut[0]));
}

TEST_CASE("harmony parses a whole exchange: analysis, call, result, final", "[harmony]") {
    auto messages = parse(weather_completion);
    CHECK(essentials(messages) == Json::parse(R"([
      {"role": "assistant", "channel": "analysis", "content": [{"content_type": "thinking", "text": "Need the weather."}]},
      {"role": "assistant", "channel": "commentary", "content": [{"content_type": "tool_call", "content":
        {"tool_call_id": "call_1", "name": "get_weather", "arguments": {"city": "Tokyo"}, "namespace": null}}]},
      {"role": "tool", "channel": "commentary", "content": [{"content_type": "tool_result", "content":
        {"tool_call_id": "call_1", "tool_name": "get_weather", "content": "{\"temp\": 21}", "is_error": false}}]},
      {"role": "assistant", "channel": "final", "content": [{"content_type": "text", "text": "It is 21 degrees."}]}
    ])"));
    CHECK(messages[3].completion()->stop_reason == StopReason::return_);
    for (const auto& m : messages) CHECK_FALSE(incomplete(m));
}

TEST_CASE("harmony every prefix of a completion parses, the cut message flagged incomplete",
          "[harmony][prefix]") {
    const Json full_essentials = essentials(parse(weather_completion));
    cmfpipe::testing::PrefixWalk walk{[](const std::string& t) { return parse(t); }, essential,
                                      harmony_stops};
    // Nothing of the text is lost: the content parsed so far is a prefix of the message's.
    walk.more = [&](const std::string&, const std::vector<Message>& messages) {
        if (incomplete(messages.back()) && !messages.back().content().empty()) {
            if (const auto* t = messages.back().part(0)->text_if()) {
                const Json& whole = full_essentials[messages.size() - 1]["content"][0];
                CHECK(whole["text"].get<std::string>().rfind(*t, 0) == 0);
            }
        }
    };
    cmfpipe::testing::walk_prefixes(weather_completion, walk);
}

TEST_CASE("harmony keeps an unfinished call's arguments and half a marker in custom.pending",
          "[harmony][prefix]") {
    auto messages =
        parse("<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"a\": 1<|ca");
    REQUIRE(messages.size() == 1);
    CHECK(messages[0].content().empty());
    CHECK(
        *custom_of(messages[0]) ==
        Json::parse(
            R"({"harmony": {"recipient": "functions.f"}, "incomplete": true, "pending": "{\"a\": 1<|ca"})"));
    auto header_cut = parse("<|channel|>analysis<|message|>ok<|end|><|start|>assistant<|chan");
    REQUIRE(header_cut.size() == 2);
    CHECK(header_cut[1].content().empty());
    CHECK(*custom_of(header_cut[1]) ==
          Json::parse(R"({"incomplete": true, "pending": "assistant<|chan"})"));
}

TEST_CASE("harmony flags a finished call whose arguments are not JSON, keeping its raw text",
          "[harmony][malformed]") {
    const std::string text =
        "<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"a\": 1,}<|call|>";
    auto messages = parse(text);
    REQUIRE(messages.size() == 1);
    CHECK(essentials(messages) == Json::parse(R"([{"role": "assistant", "channel": "commentary",
        "content": []}])"));
    CHECK(*custom_of(messages[0]) == Json::parse(R"({"invalid_tool_arguments": [{
        "tool_call_id": "call_1", "name": "f", "raw": "{\"a\": 1,}",
        "error": "arguments are not valid JSON at 1:9: syntax error while parsing object key - unexpected '}'; expected string literal"}]})"));
    // Written back, the call comes out as it came in.
    Json wire = adapter()->to_wire(messages, Json::object(),
                                   {{"system_message", false}, {"add_generation_prompt", false}});
    CHECK(wire ==
          "<|start|>assistant to=functions.f<|channel|>commentary "
          "<|constrain|>json<|message|>{\"a\": 1,}<|call|>");
}

TEST_CASE("harmony raises ValueError with line and column for text that is no harmony prefix",
          "[harmony][malformed]") {
    CHECK_THROWS_WITH(
        parse("<|channel|>analysis<|message|>x<|end|>stray text"),
        "completion:1:39: harmony: expected <|start|> to begin a message, found 'stray text'");
    CHECK_THROWS_WITH(parse("hello<|end|>", {{"source", "out.txt"}}),
                      "out.txt:1:6: harmony: <|end|> ends a message whose header 'hello' never "
                      "reached <|message|>");
    CHECK_THROWS_WITH(
        parse("<|channel|>final<|message|>a<|end|>\n<|start|>assistant to=x y z<|message|>b"),
        "completion:2:10: harmony: unexpected words in a message header: 'to=x' (header 'assistant "
        "to=x y z')");
    CHECK_THROWS_AS(parse("<|channel|><|message|>x"), cmfpipe::ValueError);
}

TEST_CASE("harmony parses the gpt-oss outputs of llama.cpp's parser tests",
          "[harmony][llama.cpp]") {
    const Json cases = Json::parse(read_file(
        (cmfpipe::testing::require_corpus("output-parsing") / "parser-cases.json").string()));
    int checked = 0;
    for (const auto& c : cases["cases"]) {
        if (c["template"].get<std::string>().find("gpt-oss") == std::string::npos) continue;
        const Json& opts = c["opts"];
        // Prefilled-turn cases depend on the prompt; reasoning_format NONE asks for the raw text.
        if (opts.contains("messages") ||
            opts.value("reasoning_format", "") == "COMMON_REASONING_FORMAT_NONE")
            continue;
        const bool partial = opts.value("is_partial", "") == "true";
        const std::string input = c["input"];
        INFO("input: " << input);
        auto messages = parse(input, {{"complete", !partial}});
        // Text to another recipient (python code, a browser query) is not the answer's content.
        auto shows_text = [](const Message& m) {
            const Json* custom = custom_of(m);
            return !(custom && custom->contains("harmony") &&
                     (*custom)["harmony"].contains("recipient"));
        };
        CHECK(cmfpipe::testing::parsed_summary(messages, shows_text) ==
              cmfpipe::testing::expected_summary(c["expect"]));
        ++checked;
    }
    CHECK(checked == 15);
}

TEST_CASE("harmony every prefix of a whole rendered conversation parses without an error",
          "[harmony][prefix]") {
    const std::vector<Message> convo = {text(Role::user, "Weather?"), thinking("Use the tool."),
                                        call("call_1", "get_weather", {{"city", "Paris"}}),
                                        result("call_1", "get_weather", "sunny"),
                                        text(Role::assistant, "Sunny.", Channel::final)};
    const Json options = {
        {"system_message", false}, {"add_generation_prompt", false}, {"auto_drop_analysis", false}};
    const std::string full_text =
        adapter()->to_wire(convo, Json::object(), options).get<std::string>();
    const auto parse_turns = [](const std::string& t) { return parse(t, {{"role", nullptr}}); };
    CHECK(essentials(parse_turns(full_text)) == essentials(convo));
    cmfpipe::testing::walk_prefixes(full_text, {parse_turns, essential, harmony_stops, 1});
}
