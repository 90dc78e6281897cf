#pragma once
// parse_json's parser against the one it replaced (support/json_reference_parse.hpp): the same
// accept or refuse, the same value with the same number types and key order, the same dump()
// byte for byte, the same error offset and words. Used by the differential test and the
// json_parse fuzz target.
#include <cstddef>
#include <string>
#include <string_view>

#include "cmfpipe/json.hpp"
#include "cmfpipe/json_parse.hpp"
#include "cmfpipe/limits.hpp"
#include "cmfpipe/wire/text_position.hpp"
#include "support/json_reference_parse.hpp"

namespace cmfpipe::testing {

// Where `a` and `b` differ in type (number_unsigned vs number_integer included) or key order,
// as a JSON pointer; "" when they do not. The values themselves are compared by == and dump().
inline std::string json_type_difference(const Json& a, const Json& b, const std::string& at = "") {
    if (a.type() != b.type()) return at.empty() ? "/" : at;
    if (a.is_array()) {
        if (a.size() != b.size()) return at + " (size)";
        for (std::size_t i = 0; i < a.size(); ++i) {
            std::string inner = json_type_difference(a[i], b[i], at + "/" + std::to_string(i));
            if (!inner.empty()) return inner;
        }
    } else if (a.is_object()) {
        if (a.size() != b.size()) return at + " (size)";
        auto x = a.items().begin();
        auto y = b.items().begin();
        for (; x != a.items().end(); ++x, ++y) {
            if (x.key() != y.key()) return at + " (key order)";
            std::string inner = json_type_difference(x.value(), y.value(), at + "/" + x.key());
            if (!inner.empty()) return inner;
        }
    }
    return "";
}

// The reference's message for a number past the double's range quoted the number; ours says it
// without the text.
inline std::string expected_message(const ReferenceParse& reference) {
    if (reference.error.find("number overflow parsing '") != std::string::npos)
        return "invalid JSON: syntax error while parsing value - number overflow";
    return reference.error;
}

// "" when both parsers agree on `text` under max_depth; otherwise what differs.
inline std::string json_parse_difference(std::string_view text, std::size_t max_depth) {
    InputLimits limits;
    limits.max_depth = max_depth;
    const ReferenceParse reference = reference_parse(text, max_depth);
    std::size_t offset = 0;
    const JsonParse ours = try_parse_json_with_offset(text, offset, limits);
    if (reference.ok != ours.value.has_value()) {
        return reference.ok ? "refused what the reference accepts: " + ours.error
                            : "accepted what the reference refuses: " + reference.error;
    }
    if (reference.ok) {
        if (!(reference.value == *ours.value)) return "a different value";
        const std::string where = json_type_difference(reference.value, *ours.value);
        if (!where.empty()) return "a different type or key order at " + where;
        if (reference.value.dump() != ours.value->dump()) return "a different dump()";
        JsonKeyFacts facts;
        const Json again = parse_json_noting_keys(text, "text", facts, limits);
        if (again.dump() != ours.value->dump()) return "parse_json_noting_keys: another value";
        return "";
    }
    if (reference.too_deep != ours.too_deep) return "too_deep differs: " + ours.error;
    if (reference.error_offset != offset) {
        return "error offset " + std::to_string(offset) + ", the reference's " +
               std::to_string(reference.error_offset) + " (" + reference.error + ")";
    }
    const std::string message = wire::location_of(text, reference.error_offset, "").to_string() +
                                ": " + expected_message(reference);
    if (message != ours.error) return "message '" + ours.error + "', expected '" + message + "'";
    return "";
}

}  // namespace cmfpipe::testing
