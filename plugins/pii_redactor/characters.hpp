#pragma once
// The character classes every scanner judges boundaries with ("not touching a letter or digit").
namespace pii {

inline bool digit(char c) {
    return c >= '0' && c <= '9';
}
// ASCII letters and digits: what std::isalnum says in the "C" locale (cmfpipe never sets
// another), without a library call for every character the scanners look at.
inline bool alnum(char c) {
    const char lower = static_cast<char>(c | 0x20);
    return digit(c) || (lower >= 'a' && lower <= 'z');
}

}  // namespace pii
