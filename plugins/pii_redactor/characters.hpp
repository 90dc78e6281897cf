#pragma once
// The character classes every scanner judges boundaries with ("not touching a letter or digit").
#include <cctype>

namespace pii {

inline bool digit(char c) {
    return c >= '0' && c <= '9';
}
inline bool alnum(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

}  // namespace pii
