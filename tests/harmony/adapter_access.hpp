#pragma once
// The real harmony plugin, found by discovery as the CLI finds it, plus small CMF builders.
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "cmfpipe/cmf.hpp"
#include "support/registry.hpp"

namespace harmony_test {

using namespace cmfpipe::cmf;
using cmfpipe::Json;

inline std::shared_ptr<cmfpipe::Adapter> adapter(const char* kind = "harmony") {
    return cmfpipe::testing::bundled_plugins().make_adapter(kind);
}

inline std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

inline Message text(Role role, std::string t, std::optional<Channel> channel = std::nullopt) {
    return Message(role, {ContentPart::text(std::move(t))}, channel);
}
inline Message thinking(std::string t) {
    return Message(Role::assistant, {ContentPart::thinking(std::move(t))}, Channel::analysis);
}
inline Message call(std::string id, std::string name, Json args,
                    std::optional<Channel> channel = Channel::commentary) {
    return Message(Role::assistant,
                   {ContentPart::make(
                       ToolCall{std::move(id), std::move(name), std::move(args), std::nullopt})},
                   channel);
}
inline Message result(std::string id, std::string name, Json content) {
    return Message(
        Role::tool,
        {ContentPart::make(ToolResult{std::move(id), std::move(name), std::move(content), false})});
}

inline const Json* custom_of(const Message& m) {
    return m.custom() ? m.custom().get() : nullptr;
}
inline bool incomplete(const Message& m) {
    const Json* c = custom_of(m);
    return c && c->value("incomplete", false);
}

// Role, channel and parts (what a round trip must keep), as JSON for readable failures.
inline Json essentials(const std::vector<Message>& messages) {
    Json out = Json::array();
    for (const auto& m : messages) {
        Json parts = Json::array();
        for (const auto& p : m.content()) parts.push_back(part_to_json(*p));
        out.push_back(
            {{"role", to_string(m.role())},
             {"channel", m.channel() ? Json(std::string(to_string(*m.channel()))) : Json(nullptr)},
             {"content", parts}});
    }
    return out;
}

}  // namespace harmony_test
