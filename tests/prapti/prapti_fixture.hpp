#pragma once
#include "cmfpipe/cmf/json.hpp"
// The real "prapti" parser plugin, found by discovery, and compact forms of what it returns so a
// test can state a whole result exactly.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/json.hpp"
#include "cmfpipe/parser.hpp"
#include "cmfpipe/request.hpp"
#include "support/registry.hpp"

namespace prapti_test {

using cmfpipe::Json;

inline const cmfpipe::Parser& parser() {
    static const std::shared_ptr<cmfpipe::Parser> instance =
        cmfpipe::testing::bundled_plugins().make_parser("prapti", Json::object());
    return *instance;
}

// The conversation as [{role, text, name?}] (one text part at most, as the parser makes them).
inline Json conversation_form(const std::vector<cmfpipe::cmf::Message>& messages) {
    using namespace cmfpipe::cmf;
    Json out = Json::array();
    for (const Message& m : messages) {
        Json entry = {{"role", std::string(to_string(m.role()))}, {"text", m.text_content()}};
        if (m.size() != 1) entry["parts"] = m.size();
        if (m.custom() && m.custom()->contains("metadata"))
            entry["name"] = m.custom()->at("metadata").at("name");
        out.push_back(entry);
    }
    return out;
}

inline std::vector<cmfpipe::cmf::Message> parse(std::string_view text,
                                                Json options = Json::object()) {
    if (!options.contains("template_name")) options["template_name"] = "doc.md";
    return parser().parse(text, options, cmfpipe::RequestContext{});
}

inline Json conversation(std::string_view text, Json options = Json::object()) {
    return conversation_form(parse(text, std::move(options)));
}

// The document as [{role, send, at: "line:col", text, name?, configuration?}], configuration
// entries as "line:col key = value" / "line:col action arguments" strings.
inline Json document(std::string_view text, Json options = Json::object()) {
    options["document"] = true;
    Json out = Json::array();
    for (const auto& m : parse(text, std::move(options))) {
        const Json& prapti = m.custom()->at("prapti");
        Json entry = {{"role", prapti["role"]},
                      {"send", prapti["send"]},
                      {"at", std::to_string(prapti["line"].get<int>()) + ":" +
                                 std::to_string(prapti["column"].get<int>())},
                      {"text", m.text_content()}};
        if (prapti.contains("name")) entry["name"] = prapti["name"];
        Json configuration = Json::array();
        for (const Json& c : prapti["configuration"]) {
            std::string line = std::to_string(c["line"].get<int>()) + ":" +
                               std::to_string(c["column"].get<int>()) + " ";
            if (c.contains("bang")) line += "!";
            if (c.contains("action")) {
                line += c["action"].get<std::string>() + " " + c["arguments"].get<std::string>();
            } else {
                line += c["key"].get<std::string>() + " = " + c["value"].dump();
            }
            configuration.push_back(line);
        }
        if (!configuration.empty()) entry["configuration"] = configuration;
        out.push_back(entry);
    }
    return out;
}

}  // namespace prapti_test

namespace prapti_test {

// "Kind: file:line:col: message" of what parsing `text` throws; "" when it does not throw.
inline std::string error_of(std::string_view text, Json options = Json::object()) {
    try {
        (void)parse(text, std::move(options));
    } catch (const cmfpipe::Error& e) {
        return std::string(e.kind()) + ": " + e.what();
    }
    return "";
}

}  // namespace prapti_test
