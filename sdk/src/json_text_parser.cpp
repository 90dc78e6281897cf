// The JSON text parser behind parse_json: one pass, no recursion (an explicit stack of the open
// containers, bounded by max_depth before a level is entered), values built in place in the
// Json tree, strings scanned eight bytes at a time and copied in runs.
//
// Where it stops and what it says follow nlohmann's parser (the one parse_json used before), so
// that a caller sees the same line:col and words: a bad character inside a token is reported
// where it is; a whole token that may not stand where it is (`]` after `,`, a second value) is
// reported at its last character, so such a token is read to its end first (describe_token).
#include "json_text_parser.hpp"

#include "json_text_errors.hpp"

#include "cmfpipe/json_string_bytes.hpp"
#include "cmfpipe/utf8.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <clocale>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <unordered_map>
#include <vector>

namespace cmfpipe::json_text {
namespace {

constexpr bool is_json_digit(char c) {
    return c >= '0' && c <= '9';
}

// A number's value as nlohmann gives it: the decimal integers that fit 64 bits exactly (>= 0
// unsigned, < 0 signed), every other number the nearest double.
struct TextNumber {
    enum class Kind : std::uint8_t { unsigned_integer, integer, floating } kind;
    std::uint64_t magnitude = 0;
    double floating = 0;
};

// The nearest double to a JSON number's text. from_chars is exact and locale-free; past the
// double's range it gives no value, and strtod's (infinity, or zero and the subnormals) is the
// one nlohmann takes, with the locale's decimal point as nlohmann puts it in.
double nearest_double(const char* first, const char* last) {
    double value = 0;
    const auto [end, error] = std::from_chars(first, last, value);
    if (error == std::errc() && end == last) return value;
    std::string text(first, last);
    const char point = *std::localeconv()->decimal_point;
    for (char& c : text)
        if (c == '.') c = point;
    return std::strtod(text.c_str(), nullptr);
}

// The values of the containers still open, kept by the thread from one parse to the next: a
// container's values gather here and move into it, allocated once at its exact size, when it
// closes (no growth of its vector one element at a time, nothing moved twice).
struct OpenValues {
    std::vector<Json> elements;                         // of the open arrays, in order
    std::vector<std::pair<std::string, Json>> members;  // of the open objects, in order
};

class TextParser {
  public:
    TextParser(std::string_view text, std::size_t max_depth, Failure& failure, JsonKeyFacts* facts,
               OpenValues& open_values)
        : begin_(text.data()),
          end_(text.data() + text.size()),
          max_depth_(max_depth),
          failure_(failure),
          facts_(facts),
          elements_(open_values.elements),
          members_(open_values.members) {}

    bool run(Json& root);

  private:
    static constexpr std::size_t no_index = static_cast<std::size_t>(-1);
    struct Open {
        bool array;
        std::size_t first;   // its first value in elements_ or members_
        std::size_t target;  // an object's: the member of members_ whose value is read next
        std::size_t index = no_index;  // an object's key index in indexes_, once it has one
    };
    // An object's keys by their hash (to members_ positions), from linear_keys keys on: the
    // duplicate check of a wide object stays linear in its size.
    using KeyIndex = std::unordered_multimap<std::size_t, std::size_t>;
    static constexpr std::size_t linear_keys = 32;

    void skip_space() {
        while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
    }

    const char* scan_string(const char* p, std::string& out, bool& escaped);
    const char* scan_escape(const char* p, std::string& out);
    const char* scan_utf8(const char* p);
    const char* scan_number(const char* p, TextNumber* number);
    const char* scan_literal(const char* p, std::string_view literal);

    // A value read goes where the innermost open container takes it (or is the document).
    template <class Value>
    void place(Value&& value) {
        if (open_ == nullptr)
            *root_ = Json(std::forward<Value>(value));
        else if (open_->array)
            elements_.emplace_back(std::forward<Value>(value));
        else
            members_[open_->target].second = Json(std::forward<Value>(value));
    }
    void member_for_key(Open& object, const char* first, const char* last, bool escaped);
    Json close_array(const Open& array);
    Json close_object(const Open& object);
    bool value_string();
    bool value_number();
    bool value_literal();

    // Token errors record where and why; the caller then says in what context.
    const char* token_error(TokenError error, const char* at, unsigned char control = 0) {
        token_error_ = error;
        token_error_at_ = at;
        control_ = control;
        return nullptr;
    }
    [[gnu::cold]] bool fail_in_token(std::string_view context, std::string_view expected);
    [[gnu::cold]] bool fail_unexpected(std::string_view context, std::string_view expected,
                                       bool expected_after_token_error = true);
    [[gnu::cold]] bool fail_too_deep(const char* bracket);
    [[gnu::cold]] bool fail_at(const char* at, std::string message);

    const char* const begin_;
    const char* const end_;
    const char* p_ = nullptr;
    const std::size_t max_depth_;
    Failure& failure_;
    JsonKeyFacts* const facts_;
    std::vector<Json>& elements_;
    std::vector<std::pair<std::string, Json>>& members_;
    std::vector<KeyIndex> indexes_;  // of the open wide objects, innermost last
    Json* root_ = nullptr;
    Open* open_ = nullptr;  // the innermost open container, or none
    TokenError token_error_ = TokenError::literal;
    const char* token_error_at_ = nullptr;
    unsigned char control_ = 0;
    std::string key_;      // a key spelled with escapes, decoded
    std::string decoded_;  // a string value spelled with escapes, decoded
};

// From just past the opening quote: just past the closing one, or nullptr (token_error). The
// characters go to `out` only once an escape is met (`escaped`); a string without one is the
// text between the quotes.
const char* TextParser::scan_string(const char* p, std::string& out, bool& escaped) {
    const char* run = p;  // the characters not yet copied to `out` (once escaped)
    escaped = false;
    for (;;) {
        p = json_string_plain_end(p, end_);
        if (p == end_) return token_error(TokenError::missing_quote, end_);
        const auto c = static_cast<unsigned char>(*p);
        if (c == '"') {
            if (escaped) out.append(run, p);
            return p + 1;
        }
        if (c == '\\') {
            out.append(run, p);
            escaped = true;
            p = scan_escape(p + 1, out);
            if (p == nullptr) return nullptr;
            run = p;
        } else if (c < 0x20) {
            return token_error(TokenError::control_character, p, c);
        } else {
            p = scan_utf8(p);  // >= 0x80
            if (p == nullptr) return nullptr;
        }
    }
}

// From just past a backslash: just past the escape (its character appended), or nullptr.
const char* TextParser::scan_escape(const char* p, std::string& out) {
    if (p == end_) return token_error(TokenError::after_backslash, end_);
    switch (*p) {
        case '"':
        case '\\':
        case '/':
            out += *p;
            return p + 1;
        case 'b':
            out += '\b';
            return p + 1;
        case 'f':
            out += '\f';
            return p + 1;
        case 'n':
            out += '\n';
            return p + 1;
        case 'r':
            out += '\r';
            return p + 1;
        case 't':
            out += '\t';
            return p + 1;
        case 'u':
            break;
        default:
            return token_error(TokenError::after_backslash, p);
    }
    // Four hex digits after `u` at `at`: the code unit, or -1 with `at` at the bad character.
    const auto code_unit = [this](const char*& at) -> int {
        int unit = 0;
        for (int i = 0; i < 4; ++i) {
            ++at;
            if (at == end_) return -1;
            const char c = *at;
            int digit;
            if (c >= '0' && c <= '9')
                digit = c - '0';
            else if (c >= 'A' && c <= 'F')
                digit = c - 'A' + 10;
            else if (c >= 'a' && c <= 'f')
                digit = c - 'a' + 10;
            else
                return -1;
            unit = unit * 16 + digit;
        }
        return unit;
    };
    const char* at = p;
    const int first = code_unit(at);
    if (first < 0) return token_error(TokenError::hex_digits, at);
    unsigned codepoint = static_cast<unsigned>(first);
    if (first >= 0xD800 && first <= 0xDBFF) {
        ++at;
        if (at == end_ || *at != '\\') return token_error(TokenError::high_surrogate, at);
        ++at;
        if (at == end_ || *at != 'u') return token_error(TokenError::high_surrogate, at);
        const int second = code_unit(at);
        if (second < 0) return token_error(TokenError::hex_digits, at);
        if (second < 0xDC00 || second > 0xDFFF) return token_error(TokenError::high_surrogate, at);
        codepoint =
            0x10000 + ((codepoint - 0xD800) << 10) + (static_cast<unsigned>(second) - 0xDC00);
    } else if (first >= 0xDC00 && first <= 0xDFFF) {
        return token_error(TokenError::low_surrogate, at);
    }
    append_utf8(out, static_cast<char32_t>(codepoint));
    return at + 1;
}

// At a byte >= 0x80 in a string: just past its well-formed UTF-8 sequence, or nullptr (at the
// first byte that does not belong).
const char* TextParser::scan_utf8(const char* p) {
    const auto lead = static_cast<unsigned char>(*p);
    // The range of the first continuation byte; the others are 80..BF.
    unsigned char low = 0x80, high = 0xBF;
    int continuations;
    if (lead >= 0xC2 && lead <= 0xDF) {
        continuations = 1;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        continuations = 2;
        if (lead == 0xE0) low = 0xA0;
        if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        continuations = 3;
        if (lead == 0xF0) low = 0x90;
        if (lead == 0xF4) high = 0x8F;
    } else {
        return token_error(TokenError::utf8, p);
    }
    for (int i = 1; i <= continuations; ++i) {
        if (p + i == end_) return token_error(TokenError::utf8, end_);
        const auto byte = static_cast<unsigned char>(p[i]);
        if (byte < low || byte > high) return token_error(TokenError::utf8, p + i);
        low = 0x80;
        high = 0xBF;
    }
    return p + 1 + continuations;
}

// At '-' or a digit: just past the number (its value in `number` when given), or nullptr.
const char* TextParser::scan_number(const char* p, TextNumber* number) {
    const char* const first = p;
    const bool negative = *p == '-';
    if (negative) {
        ++p;
        if (p == end_ || !is_json_digit(*p)) return token_error(TokenError::minus_digit, p);
    }
    const char* const digits = p;
    if (*p == '0')
        ++p;
    else
        while (p < end_ && is_json_digit(*p)) ++p;
    const char* const digits_end = p;
    bool integral = true;
    if (p < end_ && *p == '.') {
        ++p;
        if (p == end_ || !is_json_digit(*p)) return token_error(TokenError::point_digit, p);
        while (p < end_ && is_json_digit(*p)) ++p;
        integral = false;
    }
    if (p < end_ && (*p == 'e' || *p == 'E')) {
        ++p;
        if (p < end_ && (*p == '+' || *p == '-')) {
            ++p;
            if (p == end_ || !is_json_digit(*p))
                return token_error(TokenError::exponent_sign_digit, p);
        } else if (p == end_ || !is_json_digit(*p)) {
            return token_error(TokenError::exponent_digit, p);
        }
        while (p < end_ && is_json_digit(*p)) ++p;
        integral = false;
    }
    if (number == nullptr) return p;
    if (integral && digits_end - digits <= 20) {
        std::uint64_t magnitude = 0;
        bool fits = true;
        for (const char* d = digits; d < digits_end; ++d) {
            const auto digit = static_cast<std::uint64_t>(*d - '0');
            if (magnitude > (UINT64_MAX - digit) / 10) {
                fits = false;
                break;
            }
            magnitude = magnitude * 10 + digit;
        }
        if (fits && !negative) {
            number->kind = TextNumber::Kind::unsigned_integer;
            number->magnitude = magnitude;
            return p;
        }
        if (fits && magnitude <= std::uint64_t{1} << 63) {
            number->kind = TextNumber::Kind::integer;
            number->magnitude = magnitude;
            return p;
        }
    }
    number->kind = TextNumber::Kind::floating;
    number->floating = nearest_double(first, p);
    return p;
}

// At the literal's first letter: just past it, or nullptr at the first letter that differs.
const char* TextParser::scan_literal(const char* p, std::string_view literal) {
    for (std::size_t i = 1; i < literal.size(); ++i) {
        if (p + i == end_) return token_error(TokenError::literal, end_);
        if (p[i] != literal[i]) return token_error(TokenError::literal, p + i);
    }
    return p + literal.size();
}

// The member of `object` whose value is read next: a new one, or (a duplicate key) the first
// one's, whose value the one read next replaces, as nlohmann's ordered_json does.
void TextParser::member_for_key(Open& object, const char* first, const char* last, bool escaped) {
    const std::string_view key = escaped ? std::string_view(key_) : std::string_view(first, last);
    const auto duplicate = [&](std::size_t i) {
        if (facts_ != nullptr) facts_->duplicate_key = true;
        object.target = i;
    };
    std::size_t hash = 0;
    if (object.index == no_index && members_.size() - object.first >= linear_keys) {
        object.index = indexes_.size();
        KeyIndex& index = indexes_.emplace_back();
        for (std::size_t i = object.first; i < members_.size(); ++i)
            index.emplace(std::hash<std::string_view>{}(members_[i].first), i);
    }
    if (object.index == no_index) {
        for (std::size_t i = object.first; i < members_.size(); ++i)
            if (members_[i].first.size() == key.size() && members_[i].first == key)
                return duplicate(i);
    } else {
        hash = std::hash<std::string_view>{}(key);
        for (auto [at, end] = indexes_[object.index].equal_range(hash); at != end; ++at)
            if (members_[at->second].first == key) return duplicate(at->second);
    }
    if (facts_ != nullptr && escaped) facts_->escaped_key = true;
    members_.emplace_back(std::piecewise_construct, std::forward_as_tuple(key.data(), key.size()),
                          std::forward_as_tuple());
    object.target = members_.size() - 1;
    if (object.index != no_index) indexes_[object.index].emplace(hash, object.target);
}

Json TextParser::close_array(const Open& array) {
    Json value(Json::value_t::array);
    auto& elements = *value.get_ptr<Json::array_t*>();
    const auto first = elements_.begin() + static_cast<std::ptrdiff_t>(array.first);
    elements.reserve(static_cast<std::size_t>(elements_.end() - first));
    std::move(first, elements_.end(), std::back_inserter(elements));
    elements_.erase(first, elements_.end());
    return value;
}

Json TextParser::close_object(const Open& object) {
    Json value(Json::value_t::object);
    auto& members = static_cast<std::vector<std::pair<const std::string, Json>>&>(
        *value.get_ptr<Json::object_t*>());
    const auto first = members_.begin() + static_cast<std::ptrdiff_t>(object.first);
    const auto count = static_cast<std::size_t>(members_.end() - first);
    if (facts_ != nullptr && count > facts_->most_keys) facts_->most_keys = count;
    members.reserve(count);
    for (auto member = first; member != members_.end(); ++member)
        members.emplace_back(std::move(member->first), std::move(member->second));
    members_.erase(first, members_.end());
    if (object.index != no_index) indexes_.pop_back();  // the innermost wide object's
    return value;
}

bool TextParser::value_string() {
    const char* const first = p_ + 1;
    bool escaped = false;
    decoded_.clear();
    const char* after = scan_string(first, decoded_, escaped);
    if (after == nullptr) return fail_in_token("value", {});
    // Built whole, then moved into the value: one allocation for its characters.
    place(escaped ? Json::string_t(decoded_) : Json::string_t(first, after - 1));
    p_ = after;
    return true;
}

bool TextParser::value_number() {
    TextNumber number{};
    const char* after = scan_number(p_, &number);
    if (after == nullptr) return fail_in_token("value", {});
    switch (number.kind) {
        case TextNumber::Kind::unsigned_integer:
            place(static_cast<Json::number_unsigned_t>(number.magnitude));
            break;
        case TextNumber::Kind::integer:
            place(static_cast<Json::number_integer_t>(0 - number.magnitude));
            break;
        case TextNumber::Kind::floating:
            if (!std::isfinite(number.floating))
                return fail_at(after - 1, "syntax error while parsing value - number overflow");
            place(number.floating);
            break;
    }
    p_ = after;
    return true;
}

bool TextParser::value_literal() {
    const char c = *p_;
    const std::string_view literal = c == 't' ? "true" : c == 'f' ? "false" : "null";
    const char* after = scan_literal(p_, literal);
    if (after == nullptr) return fail_in_token("value", {});
    if (c == 'n')
        place(nullptr);
    else
        place(c == 't');
    p_ = after;
    return true;
}

bool TextParser::run(Json& root) {
    p_ = begin_;
    if (p_ < end_ && static_cast<unsigned char>(*p_) == 0xEF) {
        for (int i = 1; i < 3; ++i) {
            const unsigned char expected = i == 1 ? 0xBB : 0xBF;
            if (p_ + i == end_ || static_cast<unsigned char>(p_[i]) != expected) {
                token_error(TokenError::bom, p_ + i == end_ ? end_ : p_ + i);
                return fail_in_token("value", {});
            }
        }
        if (facts_ != nullptr) facts_->byte_order_mark = true;
        p_ += 3;
    }
    // The open containers, innermost last: inline for the usual few levels.
    constexpr std::size_t inline_levels = 32;
    std::array<Open, inline_levels> inline_open;
    std::vector<Open> more_open;
    std::size_t depth = 0;
    const auto innermost = [&]() -> Open* {
        if (depth == 0) return nullptr;
        return depth <= inline_levels ? &inline_open[depth - 1]
                                      : &more_open[depth - 1 - inline_levels];
    };
    const auto push = [&](Open open) {
        if (depth < inline_levels)
            inline_open[depth] = open;
        else
            more_open.push_back(open);
        ++depth;
        open_ = innermost();
    };
    const auto pop = [&] {
        if (depth > inline_levels) more_open.pop_back();
        --depth;
        open_ = innermost();
    };

    root_ = &root;
    open_ = nullptr;
    skip_space();
value:
    if (p_ == end_) return fail_unexpected("value", "'[', '{', or a literal", false);
    switch (*p_) {
        case '{':
            if (depth >= max_depth_) return fail_too_deep(p_);
            ++p_;
            skip_space();
            if (p_ < end_ && *p_ == '}') {
                ++p_;
                place(Json(Json::value_t::object));
                goto after_value;
            }
            push({false, members_.size(), 0});
            goto key;
        case '[':
            if (depth >= max_depth_) return fail_too_deep(p_);
            ++p_;
            skip_space();
            if (p_ < end_ && *p_ == ']') {
                ++p_;
                place(Json(Json::value_t::array));
                goto after_value;
            }
            push({true, elements_.size(), 0});
            goto value;
        case '"':
            if (!value_string()) return false;
            goto after_value;
        case '-':
        case '0':
        case '1':
        case '2':
        case '3':
        case '4':
        case '5':
        case '6':
        case '7':
        case '8':
        case '9':
            if (!value_number()) return false;
            goto after_value;
        case 't':
        case 'f':
        case 'n':
            if (!value_literal()) return false;
            goto after_value;
        default:
            return fail_unexpected("value", "'[', '{', or a literal", false);
    }

key:
    // At what should be a key of the innermost open object.
    {
        if (p_ == end_ || *p_ != '"') return fail_unexpected("object key", "string literal");
        const char* const first = p_ + 1;
        bool escaped = false;
        key_.clear();
        const char* after = scan_string(first, key_, escaped);
        if (after == nullptr) return fail_in_token("object key", "string literal");
        p_ = after;
        skip_space();
        if (p_ == end_ || *p_ != ':') return fail_unexpected("object separator", "':'");
        ++p_;
        skip_space();
        member_for_key(*open_, first, after - 1, escaped);
        goto value;
    }

after_value:
    skip_space();
    if (depth == 0) {
        // nlohmann takes a NUL byte for the end of the text (it reads C strings too): what
        // follows one is never read.
        if (p_ != end_ && *p_ != '\0') return fail_unexpected("value", "end of input");
        if (p_ != end_ && facts_ != nullptr) facts_->unread_tail = true;
        return true;
    }
    if (open_->array) {
        if (p_ < end_ && *p_ == ',') {
            ++p_;
            skip_space();
            goto value;
        }
        if (p_ < end_ && *p_ == ']') {
            ++p_;
            Json array = close_array(*open_);
            pop();
            place(std::move(array));
            goto after_value;
        }
        return fail_unexpected("array", "']'");
    }
    if (p_ < end_ && *p_ == ',') {
        ++p_;
        skip_space();
        goto key;
    }
    if (p_ < end_ && *p_ == '}') {
        ++p_;
        Json object = close_object(*open_);
        pop();
        place(std::move(object));
        goto after_value;
    }
    return fail_unexpected("object", "'}'");
}

bool TextParser::fail_at(const char* at, std::string message) {
    failure_.offset = static_cast<std::size_t>(at - begin_);
    failure_.message = std::move(message);
    return false;
}

bool TextParser::fail_in_token(std::string_view context, std::string_view expected) {
    std::string message = "syntax error while parsing " + std::string(context) + " - " +
                          token_error_words(token_error_, control_);
    if (!expected.empty()) message += "; expected " + std::string(expected);
    return fail_at(token_error_at_, std::move(message));
}

// The token at p_ may not stand there: read it to its end (nlohmann reports its last character)
// unless it is itself unreadable, and name it.
bool TextParser::fail_unexpected(std::string_view context, std::string_view expected,
                                 bool expected_after_token_error) {
    const char* last = p_;
    std::string_view name;
    std::string scratch;
    bool escaped = false;
    const char* after = nullptr;
    bool scanned = false;  // a token of more than one character, read to its end (or error)
    if (p_ == end_ || *p_ == '\0') {
        name = "end of input";  // a NUL byte is one too
    } else {
        switch (*p_) {
            case '[':
                name = "'['";
                break;
            case '{':
                name = "'{'";
                break;
            case ']':
                name = "']'";
                break;
            case '}':
                name = "'}'";
                break;
            case ':':
                name = "':'";
                break;
            case ',':
                name = "','";
                break;
            case '"':
                name = "string literal";
                after = scan_string(p_ + 1, scratch, escaped);
                scanned = true;
                break;
            case 't':
                name = "true literal";
                after = scan_literal(p_, "true");
                scanned = true;
                break;
            case 'f':
                name = "false literal";
                after = scan_literal(p_, "false");
                scanned = true;
                break;
            case 'n':
                name = "null literal";
                after = scan_literal(p_, "null");
                scanned = true;
                break;
            default:
                if (*p_ == '-' || is_json_digit(*p_)) {
                    name = "number literal";
                    after = scan_number(p_, nullptr);
                    scanned = true;
                } else {
                    token_error(TokenError::literal, p_);
                }
        }
        if (name.empty() || (scanned && after == nullptr)) {
            return fail_in_token(context, expected_after_token_error ? expected : "");
        }
        if (after != nullptr) last = after - 1;
    }
    return fail_at(last, "syntax error while parsing " + std::string(context) + " - unexpected " +
                             std::string(name) + "; expected " + std::string(expected));
}

bool TextParser::fail_too_deep(const char* bracket) {
    failure_.too_deep = true;
    failure_.offset = static_cast<std::size_t>(bracket - begin_);
    return false;
}

}  // namespace

bool parse(std::string_view text, std::size_t max_depth, Json& out, Failure& failure,
           JsonKeyFacts* facts) {
    thread_local OpenValues open_values;
    TextParser parser(text, max_depth, failure, facts, open_values);
    const bool parsed = parser.run(out);
    // What a failed parse left open goes (its values are trees: nlohmann's destructor is
    // iterative); what one large document grew is not kept for the next.
    constexpr std::size_t most_kept = 4096;
    if (open_values.elements.capacity() > most_kept) std::vector<Json>().swap(open_values.elements);
    if (open_values.members.capacity() > most_kept)
        std::vector<std::pair<std::string, Json>>().swap(open_values.members);
    open_values.elements.clear();
    open_values.members.clear();
    if (parsed) return true;
    out = Json();
    return false;
}

}  // namespace cmfpipe::json_text
