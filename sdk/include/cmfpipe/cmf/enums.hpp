#pragma once
// The closed sets of CMF (spec v2): every value has one spelling on the wire, and parsing a
// spelling that is not in the set yields nothing (the JSON reader turns that into a ValueError).
#include <cstdint>
#include <optional>
#include <string_view>

namespace cmfpipe::cmf {

// WHO is speaking.
enum class Role : std::uint8_t { system, developer, user, assistant, tool };

// WHAT KIND of output a message is; absent (std::nullopt) means unclassified.
enum class Channel : std::uint8_t { analysis, commentary, final };

// The discriminator of a content part. The order is the order of ContentPart's alternatives.
enum class ContentType : std::uint8_t {
    text,
    thinking,
    tool_call,
    tool_result,
    resource,
    resource_ref,
    prompt_request,
    prompt_result,
    image,
    video,
    audio,
    document,
};
inline constexpr int content_type_count = 12;

// A view's kind is its part's content type (spec §4.3: the same twelve values).
using ViewKind = ContentType;

enum class ResourceType : std::uint8_t { file, blob, uri, database, api, memory, artifact };

// How the data of an image/video/audio/document part is given.
enum class MediaSourceType : std::uint8_t { url, base64 };

enum class SubjectType : std::uint8_t { user, agent, service, system };

// Why a model stopped. `return` is a C++ keyword, hence `return_` (spelled "return" on the wire).
enum class StopReason : std::uint8_t { end, return_, call, max_tokens, stop_sequence };

// The semantic action of a view (spec §4.3).
enum class ViewAction : std::uint8_t { read, write, execute, invoke, send, receive, generate };

std::string_view to_string(Role value);
std::string_view to_string(Channel value);
std::string_view to_string(ContentType value);
std::string_view to_string(ResourceType value);
std::string_view to_string(MediaSourceType value);
std::string_view to_string(SubjectType value);
std::string_view to_string(StopReason value);
std::string_view to_string(ViewAction value);

// Parse a wire spelling; std::nullopt when it is not in the set (never a fallback value).
template <class Enum>
std::optional<Enum> enum_from_string(std::string_view text);

// "a, b, c": the spellings of a set, for error messages.
template <class Enum>
std::string_view enum_spellings();

}  // namespace cmfpipe::cmf
