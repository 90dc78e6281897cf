#pragma once
// The parse parse_json did before it had its own parser (nlohmann's SAX parser driving its DOM
// builder, nesting counted on the way in), kept here only as the reference the new one is
// compared with: the differential test, the json_parse fuzz target and the bench.
#include <cstddef>
#include <string>
#include <string_view>

#include "cmfpipe/json.hpp"

namespace cmfpipe::testing {

struct ReferenceParse {
    Json value;
    bool ok = false;
    bool too_deep = false;
    std::size_t error_offset = 0;
    std::string error;  // "invalid JSON: ..." with nlohmann's excerpt of the text taken out
};

namespace reference_detail {

// nlohmann's message quotes the token it last read ("; last read: '<token>'"); the callback is
// given that token, so exactly it is taken out. (parse_json's own without_excerpt guessed the
// excerpt's end from the message, and a token holding "'; expected " made it keep some of it.)
inline std::string without_excerpt(std::string message, const std::string& token) {
    const std::string excerpt = "; last read: '" + token + "'";
    const std::size_t start = message.find(excerpt);
    if (start != std::string::npos) message.erase(start, excerpt.size());
    return message;
}

class BoundedDomBuilder {
  public:
    using Dom = nlohmann::detail::json_sax_dom_parser<Json>;

    BoundedDomBuilder(ReferenceParse& outcome, std::size_t max_depth)
        : outcome_(outcome), dom_(outcome.value, false), max_depth_(max_depth) {}

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
    bool parse_error(std::size_t position, const std::string& token,
                     const nlohmann::detail::exception& e) {
        outcome_.error_offset = position == 0 ? 0 : position - 1;
        std::string what = e.what();
        auto at = what.find("syntax error");
        outcome_.error = "invalid JSON: " +
                         without_excerpt(at == std::string::npos ? what : what.substr(at), token);
        return false;
    }

  private:
    bool enter() {
        if (++depth_ <= max_depth_) return true;
        outcome_.too_deep = true;
        return false;
    }

    ReferenceParse& outcome_;
    Dom dom_;
    std::size_t depth_ = 0;
    std::size_t max_depth_;
};

inline std::size_t offset_of_level(std::string_view text, std::size_t level) {
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

}  // namespace reference_detail

inline ReferenceParse reference_parse(std::string_view text, std::size_t max_depth) {
    ReferenceParse outcome;
    reference_detail::BoundedDomBuilder builder(outcome, max_depth);
    outcome.ok = Json::sax_parse(text.begin(), text.end(), &builder);
    if (outcome.too_deep) {
        outcome.error =
            "JSON nested deeper than " + std::to_string(max_depth) + " levels (max_depth)";
        outcome.error_offset = reference_detail::offset_of_level(text, max_depth + 1);
    }
    if (!outcome.ok) outcome.value = Json();
    return outcome;
}

}  // namespace cmfpipe::testing
