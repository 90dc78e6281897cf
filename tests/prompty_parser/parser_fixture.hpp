#pragma once
// The real "prompty" parser plugin, found by discovery, plus the small helpers the parser tests
// share: the Prompty vector form of messages and a stand-in for the renderer.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/json.hpp"
#include "cmfpipe/parser.hpp"
#include "cmfpipe/request.hpp"
#include "support/registry.hpp"

namespace prompty_parser_test {

using cmfpipe::Json;

// Discovered once (bundled plugin directory only, no environment) and shared by the tests.
inline std::shared_ptr<cmfpipe::Parser> make_parser(const Json& config = Json::object()) {
    return cmfpipe::testing::bundled_plugins().make_parser("prompty", config);
}

inline const cmfpipe::Parser& parser() {
    static const std::shared_ptr<cmfpipe::Parser> instance = make_parser();
    return *instance;
}

inline const Json strict_off = Json{{"strict", false}};

// Messages in the form of the Prompty vectors: {role, content: [{kind, value}], metadata?}.
inline Json to_vector_form(const std::vector<cmfpipe::cmf::Message>& messages) {
    using namespace cmfpipe::cmf;
    Json out = Json::array();
    for (const auto& m : messages) {
        Json content = Json::array();
        for (const auto& part : m.content()) {
            if (const auto* t = part->get_if<Text>()) {
                content.push_back({{"kind", "text"}, {"value", t->text}});
            } else if (const auto* i = part->get_if<ImageSource>()) {
                content.push_back({{"kind", "image"},
                                   {"type", to_string(i->type)},
                                   {"value", i->data},
                                   {"mediaType", i->media_type ? Json(*i->media_type) : Json()}});
            } else if (const auto* d = part->get_if<DocumentSource>()) {
                content.push_back({{"kind", "file"},
                                   {"type", to_string(d->type)},
                                   {"value", d->data},
                                   {"mediaType", d->media_type ? Json(*d->media_type) : Json()}});
            } else if (const auto* a = part->get_if<AudioSource>()) {
                content.push_back({{"kind", "audio"},
                                   {"type", to_string(a->type)},
                                   {"value", a->data},
                                   {"mediaType", a->media_type ? Json(*a->media_type) : Json()}});
            } else {
                content.push_back({{"kind", std::string(to_string(part->type()))}});
            }
        }
        Json message = {{"role", std::string(to_string(m.role()))}, {"content", content}};
        if (m.custom() && m.custom()->contains("metadata"))
            message["metadata"] = m.custom()->at("metadata");
        out.push_back(message);
    }
    return out;
}

// What a renderer does with plain inputs: every "{{name}}" replaced by its value.
inline std::string substitute(std::string text,
                              const std::vector<std::pair<std::string, std::string>>& values) {
    for (const auto& [name, value] : values) {
        const std::string hole = "{{" + name + "}}";
        for (auto at = text.find(hole); at != std::string::npos;
             at = text.find(hole, at + value.size())) {
            text.replace(at, hole.size(), value);
        }
    }
    return text;
}

// One text message in vector form.
inline Json text_message(std::string_view role, std::string_view text) {
    return {{"role", role}, {"content", Json::array({{{"kind", "text"}, {"value", text}}})}};
}

}  // namespace prompty_parser_test
