// Python string semantics on UTF-8. Case mapping covers ASCII; other characters pass unchanged.
#include "text.hpp"

#include <array>

#include <algorithm>

#include "failure.hpp"
#include "value.hpp"

namespace cmfpipe::jinja2 {

bool is_py_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' ||
           (c >= '\x1c' && c <= '\x1f');
}

std::string_view strip_space(std::string_view s, bool left, bool right) {
    if (left)
        while (!s.empty() && is_py_space(s.front())) s.remove_prefix(1);
    if (right)
        while (!s.empty() && is_py_space(s.back())) s.remove_suffix(1);
    return s;
}

std::string strip_chars(std::string_view s, std::string_view chars, bool left, bool right) {
    if (is_ascii(chars)) {
        std::size_t b = 0, e = s.size();
        if (left)
            while (b < e && chars.find(s[b]) != std::string_view::npos) ++b;
        if (right)
            while (e > b && chars.find(s[e - 1]) != std::string_view::npos) --e;
        return std::string(s.substr(b, e - b));
    }
    auto set = utf8_chars(chars);
    auto cs = utf8_chars(s);
    auto member = [&](std::string_view c) {
        return std::find(set.begin(), set.end(), c) != set.end();
    };
    std::size_t b = 0, e = cs.size();
    if (left)
        while (b < e && member(cs[b])) ++b;
    if (right)
        while (e > b && member(cs[e - 1])) --e;
    std::string out;
    for (std::size_t i = b; i < e; ++i) out += cs[i];
    return out;
}

std::vector<std::string> split_whitespace(std::string_view s, std::int64_t maxsplit,
                                          bool from_right) {
    std::vector<std::string> parts;
    if (!from_right) {
        std::size_t i = 0;
        while (true) {
            while (i < s.size() && is_py_space(s[i])) ++i;
            if (i >= s.size()) break;
            if (maxsplit >= 0 && static_cast<std::int64_t>(parts.size()) == maxsplit) {
                parts.emplace_back(strip_space(s.substr(i), false, true));
                break;
            }
            std::size_t j = i;
            while (j < s.size() && !is_py_space(s[j])) ++j;
            parts.emplace_back(s.substr(i, j - i));
            i = j;
        }
        return parts;
    }
    std::size_t e = s.size();
    while (true) {
        while (e > 0 && is_py_space(s[e - 1])) --e;
        if (e == 0) break;
        if (maxsplit >= 0 && static_cast<std::int64_t>(parts.size()) == maxsplit) {
            parts.emplace_back(strip_space(s.substr(0, e), true, false));
            break;
        }
        std::size_t b = e;
        while (b > 0 && !is_py_space(s[b - 1])) --b;
        parts.emplace_back(s.substr(b, e - b));
        e = b;
    }
    std::reverse(parts.begin(), parts.end());
    return parts;
}

std::vector<std::string> split_sep(std::string_view s, std::string_view sep, std::int64_t maxsplit,
                                   bool from_right) {
    std::vector<std::string> parts;
    if (!from_right) {
        std::size_t start = 0;
        while (maxsplit < 0 || static_cast<std::int64_t>(parts.size()) < maxsplit) {
            std::size_t p = s.find(sep, start);
            if (p == std::string_view::npos) break;
            parts.emplace_back(s.substr(start, p - start));
            start = p + sep.size();
        }
        parts.emplace_back(s.substr(start));
        return parts;
    }
    std::size_t end = s.size();
    while (maxsplit < 0 || static_cast<std::int64_t>(parts.size()) < maxsplit) {
        if (end < sep.size()) break;
        std::size_t p = s.rfind(sep, end - sep.size());
        if (p == std::string_view::npos) break;
        parts.emplace_back(s.substr(p + sep.size(), end - p - sep.size()));
        end = p;
    }
    parts.emplace_back(s.substr(0, end));
    std::reverse(parts.begin(), parts.end());
    return parts;
}

std::vector<std::string> split_lines(std::string_view s, bool keepends) {
    std::vector<std::string> lines;
    std::size_t i = 0;
    while (i < s.size()) {
        std::size_t j = i;
        while (j < s.size() && s[j] != '\n' && s[j] != '\r' && s[j] != '\v' && s[j] != '\f' &&
               !(s[j] >= '\x1c' && s[j] <= '\x1e'))
            ++j;
        std::size_t eol = j;
        if (j < s.size()) {
            if (s[j] == '\r' && j + 1 < s.size() && s[j + 1] == '\n')
                j += 2;
            else
                j += 1;
        }
        lines.emplace_back(s.substr(i, (keepends ? j : eol) - i));
        i = j;
    }
    return lines;
}

std::string replace_all(std::string_view s, std::string_view old, std::string_view neu,
                        std::int64_t count, std::size_t max_bytes) {
    std::string out;
    std::int64_t done = 0;
    auto grow = [&] {
        if (out.size() > max_bytes)
            throw Failure::limit_exceeded("string exceeds the limit of " +
                                          std::to_string(max_bytes) + " bytes");
    };
    if (old.empty()) {
        auto chars = utf8_chars(s);
        for (std::size_t i = 0; i <= chars.size(); ++i) {
            if (count < 0 || done < count) {
                out += neu;
                ++done;
            }
            if (i < chars.size()) out += chars[i];
            grow();
        }
        return out;
    }
    std::size_t start = 0;
    while (count < 0 || done < count) {
        std::size_t p = s.find(old, start);
        if (p == std::string_view::npos) break;
        out.append(s.substr(start, p - start));
        out.append(neu);
        grow();
        start = p + old.size();
        ++done;
    }
    out.append(s.substr(start));
    return out;
}

std::string ascii_upper(std::string_view s) {
    std::string r(s);
    for (char& c : r)
        if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
    return r;
}

std::string ascii_lower(std::string_view s) {
    std::string r(s);
    for (char& c : r)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    return r;
}

static bool is_alpha_byte(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (static_cast<unsigned char>(c) >= 0x80);
}

std::string python_title(std::string_view s) {
    std::string r(s);
    bool prev_cased = false;
    for (char& c : r) {
        if (c >= 'a' && c <= 'z') {
            if (!prev_cased) c = static_cast<char>(c - 32);
            prev_cased = true;
        } else if (c >= 'A' && c <= 'Z') {
            if (prev_cased) c = static_cast<char>(c + 32);
            prev_cased = true;
        } else {
            prev_cased =
                is_alpha_byte(c) && static_cast<unsigned char>(c) >= 0x80 ? prev_cased : false;
        }
    }
    return r;
}

std::string jinja_title(std::string_view s) {
    // words begin after runs of '-', whitespace, '(', '{', '[', '<'
    std::string r;
    r.reserve(s.size());
    bool word_start = true;
    for (char c : s) {
        bool sep = c == '-' || is_py_space(c) || c == '(' || c == '{' || c == '[' || c == '<';
        if (sep) {
            r += c;
            word_start = true;
            continue;
        }
        if (word_start) {
            r += (c >= 'a' && c <= 'z') ? static_cast<char>(c - 32) : c;
            word_start = false;
        } else {
            r += (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
        }
    }
    return r;
}

std::string capitalize(std::string_view s) {
    std::string r = ascii_lower(s);
    if (!r.empty() && r[0] >= 'a' && r[0] <= 'z') r[0] = static_cast<char>(r[0] - 32);
    return r;
}

std::string pad(std::string_view s, std::int64_t width, std::string_view fill, char align) {
    std::int64_t len = static_cast<std::int64_t>(utf8_length(s));
    if (width <= len) return std::string(s);
    std::int64_t total = width - len;
    std::int64_t left = 0;
    if (align == '>')
        left = total;
    else if (align == '^')
        left = total / 2 + (total & width & 1);  // Python's str.center rule
    else if (align == 'c')
        left = total / 2;  // format()'s '^' rule
    std::int64_t right = total - left;
    std::string r;
    for (std::int64_t i = 0; i < left; ++i) r += fill;
    r += s;
    for (std::int64_t i = 0; i < right; ++i) r += fill;
    return r;
}

void append_html_escaped(std::string& out, std::string_view in) {
    auto needs_escape = [](std::uint64_t w) {
        using namespace word_scan;
        return equal_to(w, '&') | equal_to(w, '<') | equal_to(w, '>') | equal_to(w, '"') |
               equal_to(w, '\'');
    };
    // Plain text, the usual case, is found a word at a time and copied in one append.
    std::size_t first = word_scan::find_first(in, 0, needs_escape, ' ');
    if (first == in.size()) {
        out.append(in);
        return;
    }
    // Text with escapes (JSON is full of quotes) is written in one pass through a cursor, into
    // room for the worst case (every byte an entity), and cut to size after.
    struct Entity {
        char text[8];  // stored whole: one 8-byte copy, then the cursor moves by size
        std::uint8_t size;
    };
    static constexpr Entity kEntities[] = {
        {"&amp;", 5}, {"&lt;", 4}, {"&gt;", 4}, {"&#34;", 5}, {"&#39;", 5}};
    static constexpr auto kEntityOf = [] {
        std::array<std::uint8_t, 256> t{};  // 1 + index in kEntities; 0 = copied as is
        t['&'] = 1;
        t['<'] = 2;
        t['>'] = 3;
        t['"'] = 4;
        t['\''] = 5;
        return t;
    }();
    const std::size_t at = out.size();
    out.resize(at + first + 5 * (in.size() - first) + 3);  // + 3: the last entity's whole copy
    char* const begin = out.data() + at;
    std::memcpy(begin, in.data(), first);
    char* p = begin + first;
    for (std::size_t i = first; i < in.size(); ++i) {
        std::uint8_t e = kEntityOf[static_cast<unsigned char>(in[i])];
        if (!e) {
            *p++ = in[i];
        } else {
            std::memcpy(p, kEntities[e - 1].text, 8);
            p += kEntities[e - 1].size;
        }
    }
    out.resize(at + static_cast<std::size_t>(p - begin));
}

}  // namespace cmfpipe::jinja2
