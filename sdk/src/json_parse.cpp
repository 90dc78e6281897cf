// Bounded JSON parsing: the policy (which limit, which error type, the messages' prefix and
// line:col) over the text parser of json_text_parser.cpp, which counts the nesting on the way in
// and fails before a level deeper than max_depth exists.
#include "cmfpipe/json_parse.hpp"

#include "cmfpipe/errors.hpp"
#include "cmfpipe/wire/text_position.hpp"
#include "json_text_parser.hpp"

namespace cmfpipe {

namespace {

struct ParseOutcome {
    Json value;
    bool ok = false;
    bool too_deep = false;
    std::size_t error_offset = 0;
    std::string error;
};

// The messages never quote the text: an upstream's answer quoted in the error its client gets
// would pass the guard unseen, so only the position (line:col, added by the caller) says where.
ParseOutcome parse(std::string_view text, const InputLimits& limits, JsonKeyFacts* facts) {
    ParseOutcome outcome;
    json_text::Failure failure;
    outcome.ok = json_text::parse(text, limits.max_depth, outcome.value, failure, facts);
    if (outcome.ok) return outcome;
    outcome.too_deep = failure.too_deep;
    outcome.error_offset = failure.offset;
    outcome.error = failure.too_deep ? "JSON nested deeper than " +
                                           std::to_string(limits.max_depth) + " levels (max_depth)"
                                     : "invalid JSON: " + failure.message;
    return outcome;
}

Json value_or_throw(std::string_view text, const std::string& source, ParseOutcome outcome) {
    if (outcome.ok) return std::move(outcome.value);
    SourceLocation where = wire::location_of(text, outcome.error_offset, source);
    if (outcome.too_deep) throw LimitExceeded(outcome.error, where);
    throw ValueError(outcome.error, where);
}

}  // namespace

Json parse_json(std::string_view text, const std::string& source, const InputLimits& limits) {
    return value_or_throw(text, source, parse(text, limits, nullptr));
}

Json parse_json_noting_keys(std::string_view text, const std::string& source, JsonKeyFacts& facts,
                            const InputLimits& limits) {
    facts = JsonKeyFacts{};
    return value_or_throw(text, source, parse(text, limits, &facts));
}

JsonParse try_parse_json(std::string_view text, const InputLimits& limits) {
    std::size_t error_offset = 0;
    return try_parse_json_with_offset(text, error_offset, limits);
}

JsonParse try_parse_json_with_offset(std::string_view text, std::size_t& error_offset,
                                     const InputLimits& limits) {
    ParseOutcome outcome = parse(text, limits, nullptr);
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
