#pragma once
// llama.cpp's output-parsing cases (corpus output-parsing/parser-cases.json), as the chatml and
// harmony tests check them: what the parsed messages add up to — content, reasoning and tool
// calls — against a case's "expect".
#include <functional>
#include <vector>

#include "cmfpipe/cmf/message.hpp"

namespace cmfpipe::testing {

// {content, reasoning_content, tool_calls: [{name, arguments}]}. `shows_text` (optional) says
// whether a message's text parts count as content (harmony: not a message to another recipient).
inline Json parsed_summary(const std::vector<cmf::Message>& messages,
                           const std::function<bool(const cmf::Message&)>& shows_text = nullptr) {
    std::string content, reasoning;
    Json calls = Json::array();
    for (const auto& m : messages) {
        const bool text_counts = !shows_text || shows_text(m);
        for (const auto& p : m.content()) {
            if (const auto* t = p->get_if<cmf::Thinking>()) reasoning += t->text;
            if (const auto* t = p->get_if<cmf::Text>(); t && text_counts) content += t->text;
            if (const auto* tc = p->get_if<cmf::ToolCall>())
                calls.push_back({{"name", tc->name}, {"arguments", tc->arguments}});
        }
    }
    return {{"content", content}, {"reasoning_content", reasoning}, {"tool_calls", calls}};
}

// The same from a case's "expect" (its arguments are JSON text).
inline Json expected_summary(const Json& expect) {
    Json calls = Json::array();
    for (const auto& tc : expect.value("tool_calls", Json::array()))
        calls.push_back(
            {{"name", tc["name"]}, {"arguments", Json::parse(tc["arguments"].get<std::string>())}});
    return {{"content", expect.value("content", "")},
            {"reasoning_content", expect.value("reasoning_content", "")},
            {"tool_calls", calls}};
}

}  // namespace cmfpipe::testing
