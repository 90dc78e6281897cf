#pragma once
// Random byte edits of a text, for the differential tests that run a fast reader beside its full
// path on mutated inputs (tests/openai, tests/anthropic): each edit erases a byte, inserts one of
// `alphabet`, overwrites one with it, or (`last`) repeats a span of up to 11 bytes after itself
// (a key or a member twice) or cuts the text there.
#include <cstddef>
#include <random>
#include <string>
#include <string_view>

namespace cmfpipe::testing {

enum class LastEdit { none, repeat_span, cut };

inline void edit_bytes(std::string& text, std::size_t edits, std::mt19937& random,
                       std::string_view alphabet, LastEdit last = LastEdit::none) {
    const unsigned kinds = last == LastEdit::none ? 3 : 4;
    for (std::size_t e = 0; e < edits && !text.empty(); ++e) {
        const std::size_t at = random() % text.size();
        switch (random() % kinds) {
            case 0:
                text.erase(at, 1);
                break;
            case 1:
                text.insert(at, 1, alphabet[random() % alphabet.size()]);
                break;
            case 2:
                text[at] = alphabet[random() % alphabet.size()];
                break;
            default:
                if (last == LastEdit::cut) {
                    text.resize(at);
                } else {
                    text.insert(at, text.substr(at, random() % 12));
                }
        }
    }
}

}  // namespace cmfpipe::testing
