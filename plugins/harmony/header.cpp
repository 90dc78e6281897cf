// Harmony header parsing (see header.hpp).
#include "header.hpp"

#include <array>
#include <vector>

#include "special_tokens.hpp"

namespace cmfpipe::harmony {
namespace {

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

std::vector<std::string> split_words(std::string_view text) {
    std::vector<std::string> words;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && is_space(text[i])) ++i;
        std::size_t start = i;
        while (i < text.size() && !is_space(text[i])) ++i;
        if (i > start) words.emplace_back(text.substr(start, i - start));
    }
    return words;
}

std::string strip_prefix(const std::string& word, std::string_view prefix) {
    return word.compare(0, prefix.size(), prefix) == 0 ? word.substr(prefix.size()) : word;
}

// Removes "<|channel|>NAME" from the header and returns NAME; a header with several markers
// keeps the last one. `complete`: the name must be followed by something to count.
std::optional<std::string> take_channel(std::string& header, bool complete) {
    const std::string marker(spelling(Marker::channel));
    std::size_t first = header.find(marker);
    if (first == std::string::npos) return std::nullopt;
    std::size_t last = header.rfind(marker);
    if (last != first) header.erase(first, last - first);
    std::size_t value_begin = first + marker.size();
    std::size_t value_end = value_begin;
    while (value_end < header.size() && !is_space(header[value_end]) && header[value_end] != '<')
        ++value_end;
    if (!complete && value_end == header.size()) {
        header.erase(first);
        return std::nullopt;
    }
    std::string name = header.substr(value_begin, value_end - value_begin);
    if (name.empty()) {
        if (complete) throw HeaderError("a <|channel|> marker without a channel name");
        header.erase(first, marker.size());
        return std::nullopt;
    }
    header.erase(first, value_end - first);
    return name;
}

}  // namespace

bool is_role(std::string_view word) {
    static constexpr std::array<std::string_view, 5> roles = {"system", "developer", "user",
                                                              "assistant", "tool"};
    for (auto r : roles)
        if (word == r) return true;
    return false;
}

Header parse_header(std::string_view text, const std::optional<std::string>& preset_role) {
    std::string header(text);
    Header h;
    h.channel = take_channel(header, true);
    // "to=x<|constrain|>json": the constrain marker starts a word of its own.
    const std::string constrain(spelling(Marker::constrain));
    for (std::size_t at = header.find(constrain); at != std::string::npos;
         at = header.find(constrain, at + 1 + constrain.size()))
        header.insert(at, " ");
    std::vector<std::string> words = split_words(header);

    if (preset_role) {
        h.role = *preset_role;
    } else {
        if (words.empty()) throw HeaderError("a message header without a role");
        if (is_role(words.front())) {
            h.role = words.front();
        } else {
            h.role = "tool";
            h.author = words.front();
            words.erase(words.begin());
        }
    }
    if (!words.empty() && words.front() == h.role) words.erase(words.begin());

    if (!words.empty()) {
        const std::size_t count = words.size();
        std::string last = words.back();
        words.pop_back();
        if (last.rfind("to=", 0) == 0) {
            h.recipient = last.substr(3);
        } else if (count == 1 && last.rfind(constrain, 0) != 0) {
            h.recipient = last;
        } else {
            h.content_type = last;
            if (!words.empty()) {
                h.recipient = strip_prefix(words.back(), "to=");
                words.pop_back();
            }
        }
    }
    if (!words.empty()) {
        std::string rest;
        for (const auto& w : words) rest += (rest.empty() ? "" : " ") + w;
        throw HeaderError("unexpected words in a message header: '" + rest + "'");
    }
    if (h.recipient && h.recipient->empty())
        throw HeaderError("an empty recipient ('to=' with no name)");
    return h;
}

Header parse_partial_header(std::string_view text, const std::optional<std::string>& preset_role) {
    std::string header(text);
    Header h;
    try {
        h.channel = take_channel(header, false);
    } catch (const HeaderError&) {
    }
    if (preset_role) {
        h.role = *preset_role;
        return h;
    }
    std::vector<std::string> words = split_words(header);
    const bool first_word_finished =
        words.size() > 1 || (!header.empty() && is_space(header.back())) ||
        (!words.empty() && text.find(spelling(Marker::channel)) != std::string_view::npos);
    if (!words.empty() && first_word_finished) {
        if (is_role(words.front())) {
            h.role = words.front();
        } else {
            h.role = "tool";
            h.author = words.front();
        }
    } else {
        h.role = "assistant";
    }
    return h;
}

}  // namespace cmfpipe::harmony
