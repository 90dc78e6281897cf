// Bounded JSON parsing: nlohmann's own DOM builder driven through its SAX interface, with the
// nesting depth counted on the way in. Failing early (returning false) stops the parser before a
// deeper level exists, so no recursive code ever sees more than max_depth levels.
#include "cmfpipe/json_parse.hpp"

#include "cmfpipe/errors.hpp"
#include "cmfpipe/wire/text_position.hpp"

namespace cmfpipe {

namespace {

struct ParseOutcome {
    Json value;
    bool ok = false;
    bool too_deep = false;
    std::size_t error_offset = 0;
    std::string error;
};

// nlohmann's message quotes the text it last read ("; last read: '...'"). That text is the
// input's own: an upstream's answer quoted in the error its client gets would pass the guard
// unseen, so only the position (line:col, added by the caller) says where.
std::string without_excerpt(std::string message) {
    constexpr std::string_view opener = "; last read: '";
    const std::size_t start = message.find(opener);
    if (start == std::string::npos) return message;
    // "...; last read: '<excerpt>'; expected <what>" or "...; last read: '<excerpt>'"
    const std::size_t expected = message.rfind("'; expected ");
    if (expected == std::string::npos || expected < start + opener.size()) {
        message.erase(start);
    } else {
        message.erase(start, expected + 1 - start);
    }
    return message;
}

class BoundedDomBuilder {
  public:
    using Dom = nlohmann::detail::json_sax_dom_parser<Json>;

    BoundedDomBuilder(ParseOutcome& outcome, std::size_t max_depth)
        : outcome_(outcome),
          dom_(outcome.value, /*allow_exceptions=*/false),
          max_depth_(max_depth) {}

    bool null() { return dom_.null(); }
    bool boolean(bool v) { return dom_.boolean(v); }
    bool number_integer(Json::number_integer_t v) { return dom_.number_integer(v); }
    bool number_unsigned(Json::number_unsigned_t v) { return dom_.number_unsigned(v); }
    bool number_float(Json::number_float_t v, const Json::string_t& s) {
        return dom_.number_float(v, s);
    }
    bool string(Json::string_t& v) { return dom_.string(v); }
    bool binary(Json::binary_t& v) { return dom_.binary(v); }
    bool key(Json::string_t& v) { return dom_.key(v); }
    bool start_object(std::size_t n) { return enter() && dom_.start_object(n); }
    bool start_array(std::size_t n) { return enter() && dom_.start_array(n); }
    bool end_object() {
        --depth_;
        return dom_.end_object();
    }
    bool end_array() {
        --depth_;
        return dom_.end_array();
    }
    bool parse_error(std::size_t position, const std::string&,
                     const nlohmann::detail::exception& e) {
        // position is 1-based, just past the offending character.
        outcome_.error_offset = position == 0 ? 0 : position - 1;
        std::string what = e.what();
        auto at = what.find("syntax error");
        outcome_.error =
            "invalid JSON: " + without_excerpt(at == std::string::npos ? what : what.substr(at));
        return false;
    }

  private:
    bool enter() {
        if (++depth_ <= max_depth_) return true;
        outcome_.too_deep = true;
        return false;
    }

    ParseOutcome& outcome_;
    Dom dom_;
    std::size_t depth_ = 0;
    std::size_t max_depth_;
};

// The offset of the bracket that opens level max_depth + 1 (strings skipped), for the error.
std::size_t offset_of_level(std::string_view text, std::size_t level) {
    std::size_t depth = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (in_string) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth == level) return i;
        } else if (c == ']' || c == '}') {
            if (depth > 0) --depth;
        }
    }
    return text.size();
}

ParseOutcome parse(std::string_view text, const InputLimits& limits) {
    ParseOutcome outcome;
    BoundedDomBuilder builder(outcome, limits.max_depth);
    outcome.ok = Json::sax_parse(text.begin(), text.end(), &builder);
    if (outcome.too_deep) {
        outcome.error =
            "JSON nested deeper than " + std::to_string(limits.max_depth) + " levels (max_depth)";
        outcome.error_offset = offset_of_level(text, limits.max_depth + 1);
    }
    if (!outcome.ok) outcome.value = Json();  // nlohmann's destructor is iterative
    return outcome;
}

}  // namespace

Json parse_json(std::string_view text, const std::string& source, const InputLimits& limits) {
    ParseOutcome outcome = parse(text, limits);
    if (outcome.ok) return std::move(outcome.value);
    SourceLocation where = wire::location_of(text, outcome.error_offset, source);
    if (outcome.too_deep) throw LimitExceeded(outcome.error, where);
    throw ValueError(outcome.error, where);
}

JsonParse try_parse_json(std::string_view text, const InputLimits& limits) {
    std::size_t error_offset = 0;
    return try_parse_json_with_offset(text, error_offset, limits);
}

JsonParse try_parse_json_with_offset(std::string_view text, std::size_t& error_offset,
                                     const InputLimits& limits) {
    ParseOutcome outcome = parse(text, limits);
    error_offset = outcome.ok ? 0 : outcome.error_offset;
    JsonParse result;
    if (outcome.ok) {
        result.value = std::move(outcome.value);
        return result;
    }
    result.too_deep = outcome.too_deep;
    result.error =
        wire::location_of(text, outcome.error_offset, "").to_string() + ": " + outcome.error;
    return result;
}

}  // namespace cmfpipe
