// (b) The chat_template adapter's from_wire (the bundled plugin, through the registry) on
// completions of 1 KiB, 64 KiB and 1 MiB: text, then one tool call, in three formats. Written
// against the contract of from_wire (CT_CONTRACT.md, issue 12): until the parser is built it
// says so and measures nothing.
#include <cstdio>

#include "bench_timing.hpp"
#include "cmfpipe/cmf/json.hpp"

namespace cmfpipe::bench {
namespace {

constexpr double goal_mb_per_s = 100.0;

struct Format {
    const char* label;
    const char* template_name;  // a corpus template
    Json options;               // beside template and tools
    std::string call;           // what the model writes after its text
};

const Json& call_arguments() {
    static const Json arguments = {{"location", "Paris"}, {"unit", "celsius"}};
    return arguments;
}

std::vector<Format> formats() {
    return {
        {"Qwen3.5 (tagged)", "Qwen3.5-4B", Json{{"enable_thinking", false}},
         "\n\n<tool_call>\n<function=get_weather>\n<parameter=location>\nParis\n</parameter>\n"
         "<parameter=unit>\ncelsius\n</parameter>\n</function>\n</tool_call>"},
        {"Hermes 2 Pro (JSON)", "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use", Json::object(),
         "\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"location\": \"Paris\", "
         "\"unit\": \"celsius\"}}\n</tool_call>"},
        {"Mistral Nemo (JSON array)", "mistralai-Mistral-Nemo-Instruct-2407",
         Json{{"bos_token", "<s>"}, {"eos_token", "</s>"}},
         "[TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": {\"location\": \"Paris\", "
         "\"unit\": \"celsius\"}, \"id\": \"a1B2c3D4e\"}]"},
    };
}

Json weather_tools() {
    return Json::array(
        {{{"type", "function"},
          {"function",
           {{"name", "get_weather"},
            {"description", "The weather at a place"},
            {"parameters",
             {{"type", "object"},
              {"properties",
               {{"location", {{"type", "string"}}},
                {"unit", {{"type", "string"}, {"enum", {"celsius", "fahrenheit"}}}}}},
              {"required", {"location"}}}}}}}});
}

// `size` bytes: prose, a list item with code (brackets and braces a parser must read past),
// non-ASCII text, then the call; cut at a UTF-8 character's start.
std::string completion_of(std::size_t size, const std::string& call) {
    static const std::string paragraph =
        "The forecast for Paris is mild: 18 \xc2\xb0"
        "C in the afternoon, light wind from the "
        "west.\n- In code, `if (a < b && b > c) { return {x: 1}; }` compares [a, b] first.\n"
        "\xc3\x9c"
        "bermorgen wird es w\xc3\xa4rmer; \xe6\x98\x8e\xe5\xa4\xa9\xe4\xbc\x9a\xe6\x9b"
        "\xb4\xe6\x9a\x96\xe5\x92\x8c\xe3\x80\x82 Numbers: 3.14159, 2,718, 42%.\n\n";
    std::string text;
    const std::size_t text_size = size > call.size() ? size - call.size() : 0;
    while (text.size() < text_size) text += paragraph;
    std::size_t cut = text_size;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    text.resize(cut);
    return text + call;
}

// Whether the message is what the completion holds: one assistant message, its text (nearly all
// of the completion) and the call last. Else the figures would time something else.
std::string check_message(const std::vector<cmf::Message>& messages, std::size_t text_size) {
    if (messages.size() != 1) return std::to_string(messages.size()) + " messages";
    const Json message = cmf::message_to_json(messages[0]);
    const Json& parts = message["content"];
    if (!parts.is_array() || parts.empty()) return "no parts";
    const Json& last = parts.back();
    if (last.value("content_type", "") != "tool_call" || last["content"]["name"] != "get_weather" ||
        last["content"]["arguments"] != call_arguments())
        return "the last part is not the call: " + last.dump().substr(0, 200);
    std::size_t text = 0;
    for (const Json& part : parts)
        if (part.value("content_type", "") == "text")
            text += part["text"].get<std::string>().size();
    if (text + 16 < text_size)
        return "the text is " + std::to_string(text) + " bytes, not " + std::to_string(text_size);
    return "";
}

}  // namespace

void bench_parse(const Registry& registry, const BenchSettings& settings) {
    std::printf("(b) from_wire: text ending in a tool call (MB/s in 10^6 bytes a second)\n");
    const std::shared_ptr<Adapter> adapter = registry.make_adapter("chat_template");
    const std::size_t sizes[] = {1 << 10, 64 << 10, 1 << 20};
    std::printf("%-28s %10s %14s %10s\n", "format", "bytes", "median_us", "MB/s");
    std::vector<double> at_1mb;
    for (const Format& format : formats()) {
        const std::filesystem::path file =
            settings.corpus / "templates" / (std::string(format.template_name) + ".jinja");
        if (!std::filesystem::exists(file)) {
            std::printf("%-28s skipped: no corpus template %s\n", format.label, file.c_str());
            continue;
        }
        Json options = format.options;
        options["template"] = read_text(file);
        options["template_name"] = format.template_name;
        options["tools"] = weather_tools();
        double seconds_per_byte[3] = {0, 0, 0};
        for (int i = 0; i < 3; ++i) {
            const std::string completion = completion_of(sizes[i], format.call);
            std::vector<cmf::Message> messages;
            try {
                messages = adapter->from_wire(completion, options);  // warms the analysis cache
            } catch (const Error& e) {
                std::printf("from_wire is not available (%s: %s): not measured\n\n", e.kind(),
                            e.message().c_str());
                return;
            }
            if (const std::string wrong =
                    check_message(messages, completion.size() - format.call.size());
                !wrong.empty())
                std::printf("%-28s WARNING: the parse is not the completion's (%s)\n", format.label,
                            wrong.c_str());
            const double seconds = median_seconds(
                [&] { return seconds_of([&] { adapter->from_wire(completion, options); }); },
                settings.min_seconds, settings.min_runs);
            seconds_per_byte[i] = seconds / static_cast<double>(completion.size());
            const double mb_per_s = static_cast<double>(completion.size()) / seconds / 1e6;
            if (i == 2) at_1mb.push_back(mb_per_s);
            std::printf("%-28s %10zu %14.1f %10.1f\n", format.label, completion.size(),
                        seconds * 1e6, mb_per_s);
        }
        std::printf(
            "%-28s time per byte, 1 MiB / 1 KiB: %.2f, 1 MiB / 64 KiB: %.2f (1.00 is linear)\n",
            format.label, seconds_per_byte[2] / seconds_per_byte[0],
            seconds_per_byte[2] / seconds_per_byte[1]);
    }
    if (!at_1mb.empty())
        std::printf(
            "1 MiB: slowest format %.1f MB/s; goal >= %.0f MB/s: %s\n\n",
            *std::min_element(at_1mb.begin(), at_1mb.end()), goal_mb_per_s,
            *std::min_element(at_1mb.begin(), at_1mb.end()) >= goal_mb_per_s ? "met" : "NOT met");
}

}  // namespace cmfpipe::bench
