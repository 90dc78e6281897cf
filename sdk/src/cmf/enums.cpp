// Wire spellings of the CMF closed sets: one table per enumeration, indexed by the enum value.
#include "cmfpipe/cmf/enums.hpp"

#include <array>
#include <string>

namespace cmfpipe::cmf {
namespace {

template <class Enum>
struct Names;

template <>
struct Names<Role> {
    static constexpr std::array<std::string_view, 5> values{"system", "developer", "user",
                                                            "assistant", "tool"};
};
template <>
struct Names<Channel> {
    static constexpr std::array<std::string_view, 3> values{"analysis", "commentary", "final"};
};
template <>
struct Names<ContentType> {
    static constexpr std::array<std::string_view, 12> values{
        "text",           "thinking",      "tool_call", "tool_result", "resource", "resource_ref",
        "prompt_request", "prompt_result", "image",     "video",       "audio",    "document"};
};
template <>
struct Names<ResourceType> {
    static constexpr std::array<std::string_view, 7> values{"file", "blob",   "uri",     "database",
                                                            "api",  "memory", "artifact"};
};
template <>
struct Names<MediaSourceType> {
    static constexpr std::array<std::string_view, 2> values{"url", "base64"};
};
template <>
struct Names<SubjectType> {
    static constexpr std::array<std::string_view, 4> values{"user", "agent", "service", "system"};
};
template <>
struct Names<StopReason> {
    static constexpr std::array<std::string_view, 5> values{"end", "return", "call", "max_tokens",
                                                            "stop_sequence"};
};
template <>
struct Names<ViewAction> {
    static constexpr std::array<std::string_view, 7> values{"read", "write",   "execute", "invoke",
                                                            "send", "receive", "generate"};
};

template <class Enum>
std::string_view name_of(Enum value) {
    const auto index = static_cast<std::size_t>(value);
    return index < Names<Enum>::values.size() ? Names<Enum>::values[index] : std::string_view{"?"};
}

template <class Enum>
std::string join_names() {
    std::string out;
    for (auto name : Names<Enum>::values) {
        if (!out.empty()) out += ", ";
        out += name;
    }
    return out;
}

}  // namespace

std::string_view to_string(Role value) {
    return name_of(value);
}
std::string_view to_string(Channel value) {
    return name_of(value);
}
std::string_view to_string(ContentType value) {
    return name_of(value);
}
std::string_view to_string(ResourceType value) {
    return name_of(value);
}
std::string_view to_string(MediaSourceType value) {
    return name_of(value);
}
std::string_view to_string(SubjectType value) {
    return name_of(value);
}
std::string_view to_string(StopReason value) {
    return name_of(value);
}
std::string_view to_string(ViewAction value) {
    return name_of(value);
}

template <class Enum>
std::optional<Enum> enum_from_string(std::string_view text) {
    const auto& names = Names<Enum>::values;
    for (std::size_t i = 0; i < names.size(); ++i)
        if (names[i] == text) return static_cast<Enum>(i);
    return std::nullopt;
}

template <class Enum>
std::string_view enum_spellings() {
    static const std::string joined = join_names<Enum>();
    return joined;
}

#define CMFPIPE_CMF_ENUM_INSTANTIATE(E)                              \
    template std::optional<E> enum_from_string<E>(std::string_view); \
    template std::string_view enum_spellings<E>();
CMFPIPE_CMF_ENUM_INSTANTIATE(Role)
CMFPIPE_CMF_ENUM_INSTANTIATE(Channel)
CMFPIPE_CMF_ENUM_INSTANTIATE(ContentType)
CMFPIPE_CMF_ENUM_INSTANTIATE(ResourceType)
CMFPIPE_CMF_ENUM_INSTANTIATE(MediaSourceType)
CMFPIPE_CMF_ENUM_INSTANTIATE(SubjectType)
CMFPIPE_CMF_ENUM_INSTANTIATE(StopReason)
CMFPIPE_CMF_ENUM_INSTANTIATE(ViewAction)
#undef CMFPIPE_CMF_ENUM_INSTANTIATE

}  // namespace cmfpipe::cmf
