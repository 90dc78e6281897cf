#pragma once
// Where a JSON value printed by a template ends: brackets counted, strings skipped (double- or
// single-quoted, since some templates print Python dicts), nothing parsed. The analysis uses it
// to cut the JSON of a rendered tool call out of the markup around it.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace cmfpipe::chat_template {

// The end (one past the closing bracket) of the object or array opening at `start`, or nothing
// if it is not closed in `text`.
std::optional<std::size_t> json_extent(std::string_view text, std::size_t start);

// json_extent over one text asked at many starts (a completion's call candidates), in linear
// time overall: every scan is kept as a track, the closer of every bracket it read (to its own
// closer, or to the end when there is none), so a later start the track read outside a string
// is answered from it instead of being scanned again. Candidates nested inside each other, with
// or without their closers (`<tool_calls>[{` repeated, then `}]` as often), are each one lookup.
// The answers are json_extent's.
class JsonExtents {
  public:
    explicit JsonExtents(std::string_view text) : text_(text) {}
    std::optional<std::size_t> extent(std::size_t start);

  private:
    // From `start` to where its scan stopped: for each position, its bracket's end (one past the
    // closer) less `start`, or one of the marks below (4 bytes a byte: completions are far below
    // 4 GB; a longer text is scanned as json_extent does).
    struct Track {
        std::size_t start;
        std::vector<std::uint32_t> end;
    };
    static constexpr std::uint32_t in_string = UINT32_MAX;
    static constexpr std::uint32_t unclosed = UINT32_MAX - 1;
    static constexpr std::uint32_t not_bracket = UINT32_MAX - 2;
    static constexpr std::size_t max_tracks = 8;  // scan states differ in few ways (see .cpp)
    Track track_from(std::size_t start) const;

    std::string_view text_;
    std::vector<Track> tracks_;
};

}  // namespace cmfpipe::chat_template
