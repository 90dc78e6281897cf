// The JSON text parser behind parse_json: one pass, no recursion (an explicit stack of the open
// containers, bounded by max_depth before a level is entered), values built in place in the
// Json tree, strings scanned 16 bytes at a time and copied in runs. What a token is (a string's
// escapes and UTF-8, a number, a literal) is json_token_scan.hpp's, shared with wire::JsonScan.
//
// Where it stops and what it says follow nlohmann's parser (the one parse_json used before), so
// that a caller sees the same line:col and words: a bad character inside a token is reported
// where it is; a whole token that may not stand where it is (`]` after `,`, a second value) is
// reported at its last character, so such a token is read to its end first (describe_token).
#include "json_text_parser.hpp"

#include "json_text_errors.hpp"
#include "json_token_scan.hpp"

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
          tokens_(end_),
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

    const char* scan_number(const char* p, TextNumber& number);

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

    // Token errors record where and why (in tokens_); the caller then says in what context.
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
    TokenScanner tokens_;  // the tokens' scans (json_token_scan.hpp), and why one failed
    std::vector<Json>& elements_;
    std::vector<std::pair<std::string, Json>>& members_;
    std::vector<KeyIndex> indexes_;  // of the open wide objects, innermost last
    Json* root_ = nullptr;
    Open* open_ = nullptr;  // the innermost open container, or none
    std::string key_;       // a key spelled with escapes, decoded
    std::string decoded_;   // a string value spelled with escapes, decoded
};

// At '-' or a digit: just past the number, its value in `number`, or nullptr.
const char* TextParser::scan_number(const char* p, TextNumber& number) {
    NumberParts parts;
    const char* const first = p;
    p = tokens_.number(p, parts);
    if (p == nullptr) return nullptr;
    if (parts.integral() && parts.digits_end - parts.digits <= 20) {
        std::uint64_t magnitude = 0;
        bool fits = true;
        for (const char* d = parts.digits; d < parts.digits_end; ++d) {
            const auto digit = static_cast<std::uint64_t>(*d - '0');
            if (magnitude > (UINT64_MAX - digit) / 10) {
                fits = false;
                break;
            }
            magnitude = magnitude * 10 + digit;
        }
        if (fits && !parts.negative) {
            number.kind = TextNumber::Kind::unsigned_integer;
            number.magnitude = magnitude;
            return p;
        }
        if (fits && magnitude <= std::uint64_t{1} << 63) {
            number.kind = TextNumber::Kind::integer;
            number.magnitude = magnitude;
            return p;
        }
    }
    number.kind = TextNumber::Kind::floating;
    number.floating = nearest_double(first, p);
    return p;
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
    const char* after = tokens_.string(first, &decoded_, escaped);
    if (after == nullptr) return fail_in_token("value", {});
    // Built whole, then moved into the value: one allocation for its characters.
    place(escaped ? Json::string_t(decoded_) : Json::string_t(first, after - 1));
    p_ = after;
    return true;
}

bool TextParser::value_number() {
    TextNumber number{};
    const char* after = scan_number(p_, number);
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
    const char* after = tokens_.literal(p_, literal);
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
                tokens_.fail(TokenError::bom, p_ + i == end_ ? end_ : p_ + i);
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
        const char* after = tokens_.string(first, &key_, escaped);
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
                          token_error_words(tokens_.error, tokens_.control);
    if (!expected.empty()) message += "; expected " + std::string(expected);
    return fail_at(tokens_.error_at, std::move(message));
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
                after = tokens_.string(p_ + 1, &scratch, escaped);
                scanned = true;
                break;
            case 't':
                name = "true literal";
                after = tokens_.literal(p_, "true");
                scanned = true;
                break;
            case 'f':
                name = "false literal";
                after = tokens_.literal(p_, "false");
                scanned = true;
                break;
            case 'n':
                name = "null literal";
                after = tokens_.literal(p_, "null");
                scanned = true;
                break;
            default:
                if (*p_ == '-' || TokenScanner::digit(*p_)) {
                    name = "number literal";
                    NumberParts parts;
                    after = tokens_.number(p_, parts);
                    scanned = true;
                } else {
                    tokens_.fail(TokenError::literal, p_);
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
