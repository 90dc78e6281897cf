#pragma once
// Strings that a writer of JSON strings must spell as nlohmann's dump spells them, for the tests
// of the writers that copy plain runs whole (cmfpipe/json_string_writer.hpp's users).
#include <string>
#include <vector>

namespace cmfpipe::testing {

// Each byte that ends a plain run (quote, backslash, a control byte, NUL) and bytes that do not
// (DEL, UTF-8) or must be replaced (an invalid byte), at every offset of 20 plain bytes: a writer
// skips plain text 16 or 8 bytes at a time, so near and past a block.
inline std::vector<std::string> special_byte_at_every_offset() {
    const std::vector<std::string> specials = {"\"",   "\\",       "\n",   std::string(1, '\x1f'),
                                               "\x7f", "\xc3\xa9", "\xff", std::string(1, '\0')};
    std::vector<std::string> texts;
    for (const std::string& special : specials) {
        for (std::size_t at = 0; at <= 19; ++at) {
            std::string text(20, 'a');
            text.insert(at, special);
            texts.push_back(std::move(text));
        }
    }
    return texts;
}

}  // namespace cmfpipe::testing
