#include "sections_to_cmf.hpp"

#include <optional>

namespace cmfpipe::prapti {
namespace {

std::optional<cmf::Role> cmf_role(const Section& section) {
    if (section.hidden) return std::nullopt;
    return cmf::enum_from_string<cmf::Role>(section.role);
}

bool is_sent(const Section& section) {
    return cmf_role(section).has_value() && !section.text.empty();
}

cmf::Message message_of(const Section& section, cmf::Role role, Json custom) {
    cmf::Content content;
    if (!section.text.empty()) content.push_back(cmf::ContentPart::text(section.text));
    cmf::Message message(role, std::move(content));
    if (!section.name.empty()) custom["metadata"] = {{"name", section.name}};
    if (!custom.empty()) message = message.with_custom(std::make_shared<const Json>(custom));
    return message;
}

}  // namespace

std::vector<cmf::Message> conversation(const std::vector<Section>& sections) {
    std::vector<cmf::Message> out;
    for (const Section& section : sections) {
        if (!section.hidden && !cmf_role(section)) {
            throw ValueError("'" + section.role + "' is not a role a model can be sent (" +
                                 std::string(cmf::enum_spellings<cmf::Role>()) +
                                 "); a hidden role starts with '_'",
                             section.at);
        }
        if (is_sent(section))
            out.push_back(message_of(section, *cmf_role(section), Json::object()));
    }
    return out;
}

std::vector<cmf::Message> document(const std::vector<Section>& sections) {
    std::vector<cmf::Message> out;
    out.reserve(sections.size());
    for (const Section& section : sections) {
        Json configuration = Json::array();
        for (const Setting& setting : section.settings) configuration.push_back(setting.to_json());
        Json prapti = {{"role", section.role},        {"send", is_sent(section)},
                       {"file", section.at.file},     {"line", section.at.line},
                       {"column", section.at.column}, {"configuration", std::move(configuration)}};
        if (!section.name.empty()) prapti["name"] = section.name;
        out.push_back(message_of(section, cmf_role(section).value_or(cmf::Role::user),
                                 Json{{"prapti", std::move(prapti)}}));
    }
    return out;
}

}  // namespace cmfpipe::prapti
