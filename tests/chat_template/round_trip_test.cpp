// Round trips over every template of the corpus: an assistant message with reasoning, text and a
// tool call -> to_wire -> the assistant turn the template renders -> from_wire -> the same parts,
// for each part the template renders. The table says which parts each template renders, so a
// template that stops rendering one (or a parser that stops reading one) fails here.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <set>

#include "chat_template_support.hpp"

namespace {

using cmfpipe::Json;

constexpr const char* reasoning = "The user wants Paris's weather, so I call the tool.";
constexpr const char* answer = "Let me look that up.";
constexpr const char* call_id = "abc123XYZ";  // nine alphanumerics, as Mistral's templates ask

const Json tools = cmfpipe::parse_json(R"([{"type": "function", "function": {"name":
    "get_weather", "description": "The weather in a city", "parameters": {"type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
    "required": ["city"]}}}])",
                                       "tools");

std::vector<cmfpipe::cmf::Message> conversation(bool with_answer) {
    Json messages = Json::array();
    messages.push_back(cmfpipe::parse_json(R"({"role": "user", "content": [{"content_type":
        "text", "text": "What is the weather in Paris?"}]})",
                                           "message"));
    if (with_answer) {
        messages.push_back(cmfpipe::parse_json(
            std::string(R"({"role": "assistant", "content": [
              {"content_type": "thinking", "text": ")") +
                reasoning + R"("}, {"content_type": "text", "text": ")" + answer +
                R"("}, {"content_type": "tool_call", "content": {"tool_call_id": ")" + call_id +
                R"(", "name": "get_weather", "arguments": {"city": "Paris", "days": 2}}}]})",
            "message"));
    }
    return cmfpipe::cmf::messages_from_json(messages);
}

// The template's options: the template, its name, and what a few templates need besides.
Json options_for(const std::string& name) {
    Json options = cmfpipe::testing::prompt_options(
        Json{{"bos_token", ""}, {"eos_token", ""}, {"enable_thinking", true}},
        cmfpipe::testing::corpus_template(name), name + ".jinja");
    if (name == "fireworks-ai-llama-3-firefunction-v2")
        options["chat_template_kwargs"] = {{"functions", tools.dump(2)},
                                           {"datetime", "Jul 26 2024 00:00:00 GMT"}};
    return options;
}

// What the template renders of the message, and what from_wire reads back from the turn, each as
// words: "reasoning", "text", "call" for a part equal to the message's, "id=ID" for the call's
// id, "thinking=...", "text=..." or "call=..." (its first 24 bytes) for a part that differs.
struct RoundTrip {
    std::string rendered;
    std::string parsed;
};

std::string differing(const char* what, const std::string& text) {
    return std::string(what) + "=" + text.substr(0, 24);
}

std::string describe(const cmfpipe::cmf::Message& message) {
    std::string out;
    const auto add = [&](const std::string& word) { out += (out.empty() ? "" : " ") + word; };
    for (const auto& part : message.content()) {
        if (const auto* thinking = part->get_if<cmfpipe::cmf::Thinking>()) {
            add(thinking->text == reasoning ? "reasoning" : differing("thinking", thinking->text));
        } else if (const auto* text = part->get_if<cmfpipe::cmf::Text>()) {
            add(text->text == answer ? "text" : differing("text", text->text));
        } else if (const auto* call = part->get_if<cmfpipe::cmf::ToolCall>()) {
            const bool same = call->name == "get_weather" &&
                              call->arguments == Json{{"city", "Paris"}, {"days", 2}};
            add(same ? "call" : differing("call", call->name + call->arguments.dump()));
            if (!call->tool_call_id.empty()) add("id=" + call->tool_call_id);
        }
    }
    if (message.extensions().custom) add("custom=" + message.extensions().custom->dump());
    return out;
}

RoundTrip round_trip(const std::string& name) {
    const auto adapter = cmfpipe::testing::chat_template_adapter();
    const Json agent = {{"tools", tools}};
    const Json options = options_for(name);
    Json without = options;
    without["add_generation_prompt"] = false;
    const std::string full =
        adapter->to_wire(conversation(true), agent, without).get<std::string>();
    const std::string prompt =
        adapter->to_wire(conversation(false), agent, options).get<std::string>();
    // The turn is what the whole conversation renders after what it shares with the prompt.
    const std::size_t shared = static_cast<std::size_t>(
        std::mismatch(prompt.begin(), prompt.begin() + std::min(prompt.size(), full.size()),
                      full.begin())
            .first -
        prompt.begin());
    const std::string turn = full.substr(shared);

    RoundTrip out;
    for (const auto& [needle, word] :
         {std::pair<std::string_view, const char*>{reasoning, "reasoning"},
          {answer, "text"},
          {"get_weather", "call"}}) {
        if (turn.find(needle) != std::string::npos)
            out.rendered += (out.rendered.empty() ? "" : " ") + std::string(word);
    }
    Json parse_options = options;
    parse_options["tools"] = tools;
    parse_options["prompt"] = full.substr(0, shared);
    const auto messages = adapter->from_wire(turn, parse_options);
    REQUIRE(messages.size() == 1);
    out.parsed = describe(messages[0]);
    return out;
}

// The parts read back without their ids: what a faithful round trip gives the rendered parts.
std::string without_ids(std::string words) {
    for (std::size_t at; (at = words.find(" id=")) != std::string::npos;)
        words.erase(at, words.find(' ', at + 1) == std::string::npos
                            ? std::string::npos
                            : words.find(' ', at + 1) - at);
    return words;
}

struct Row {
    const char* name;
    const char* parsed;    // what from_wire reads back (or "refused: " the to_wire error)
    const char* why = "";  // where that is not the rendered parts, why
};

// Every template of the corpus. A template renders what it renders of the message: some drop
// the reasoning of a turn that calls tools or of every past turn, some the text beside a call.
const Row rows[] = {
    {"Apertus-8B-Instruct", "text call"},
    {"Apriel-1.6-15b-Thinker-fixed", "reasoning text call"},
    {"ByteDance-Seed-OSS", "reasoning text call"},
    {"Cohere2MoE", "reasoning call id=0"},
    {"CohereForAI-c4ai-command-r7b-12-2024-tool_use", "reasoning call id=0"},
    {"GLM-4.6", "reasoning text call"},
    {"GigaChat3-10B-A1.8B", "text call"},
    {"GigaChat3.1-10B-A1.8B", "text call"},
    {"Kimi-K2-Instruct",
     "refused: Kimi-K2-Instruct.jinja:41:42: SecurityError: access to attribute 'append' of "
     "'list' object is unsafe.",
     "the template appends to a list for a turn with calls, which transformers' immutable "
     "sandbox refuses as ours does"},
    {"Kimi-K2-Thinking",
     "refused: Kimi-K2-Thinking.jinja:35:40: SecurityError: access to attribute 'append' of "
     "'list' object is unsafe.",
     "as Kimi-K2-Instruct"},
    {"LFM2.5-8B-A1B", "text call"},
    {"LFM2.5-Instruct", "text"},
    {"MiniMax-M2", "reasoning text call"},
    {"Mistral-Small-3.2-24B-Instruct-2506", "call id=abc123XYZ"},
    {"NVIDIA-Nemotron-Nano-v2", "thinking=Let me look that up.\n<SP custom={\"incomplete\":true}",
     "the template writes the last turn as <think> followed by its content, expecting the raw "
     "completion (reasoning, </think>, answer) as content, and its calls in a second turn"},
    {"NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use", "call"},
    {"Qwen-QwQ-32B", "text call"},
    {"Qwen-Qwen2.5-7B-Instruct", "text call"},
    {"Qwen3-Coder", "text call"},
    {"Qwen3.5-4B", "reasoning text call"},
    {"StepFun3.5-Flash", "reasoning text call"},
    {"deepseek-ai-DeepSeek-R1-Distill-Llama-8B", "text"},
    {"deepseek-ai-DeepSeek-V3.1", "text call"},
    {"deepseek-ai-DeepSeek-V3.2", "reasoning text call"},
    {"fireworks-ai-llama-3-firefunction-v2", "text call"},
    {"google-gemma-2-2b-it", "text"},
    {"google-gemma-4-31B-it", "reasoning text call"},
    {"ibm-granite-granite-3.3-2B-Instruct", "text"},
    {"ibm-granite-granite-4.1", "text call"},
    {"llama-cpp-deepseek-r1",
     "refused: llama-cpp-deepseek-r1.jinja:12:120: TypeError: Object of type generator is not "
     "JSON serializable",
     "the template pipes map() into tojson, which Python Jinja2 refuses as ours does"},
    {"meetkai-functionary-medium-v3.1", "text call"},
    {"meetkai-functionary-medium-v3.2",
     "refused: meetkai-functionary-medium-v3.2.jinja:281:65: TypeError: can only concatenate "
     "str (not \"dict\") to str",
     "the template concatenates the arguments as text; CMF hands them over as an object"},
    {"meta-llama-Llama-3.2-3B-Instruct", "call"},
    {"meta-llama-Llama-3.3-70B-Instruct", "call"},
    {"mistralai-Ministral-3-14B-Reasoning-2512", "text call"},
    {"mistralai-Mistral-Nemo-Instruct-2407", "call id=abc123XYZ"},
    {"openai-gpt-oss-120b", "thinking=Let me look that up. call",
     "the template writes the text beside calls in the analysis channel, which is reasoning"},
    {"openbmb-MiniCPM5-1B", "reasoning text call"},
    {"poolside-Laguna-XS-2.1", "reasoning text call"},
    {"poolside-Laguna-XS.2", "reasoning text call"},
    {"unsloth-Apriel-1.5", "text call"},
    {"unsloth-mistral-Devstral-Small-2507", "text call"},
};

}  // namespace

TEST_CASE("round trip: every corpus template gives back the parts it renders") {
    const auto dir = cmfpipe::testing::require_corpus("chat-templates") / "templates";
    std::set<std::string> corpus;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        if (entry.path().extension() == ".jinja") corpus.insert(entry.path().stem().string());
    std::set<std::string> listed;
    for (const Row& row : rows) listed.insert(row.name);
    CHECK(listed == corpus);  // the table covers the corpus, no more, no less
    CHECK(listed.size() == 42);

    for (const Row& row : rows) {
        INFO(row.name);
        std::string parsed;
        RoundTrip trip;
        try {
            trip = round_trip(row.name);
            parsed = trip.parsed;
        } catch (const cmfpipe::Error& e) {
            const std::string what = e.what();
            parsed = "refused: " + what.substr(0, what.find('\n'));
        }
        CHECK(parsed == row.parsed);
        // Without a reason, what came back is exactly what the template rendered.
        if (std::string_view(row.why).empty()) CHECK(without_ids(parsed) == trip.rendered);
    }
}
