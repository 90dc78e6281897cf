#pragma once
// A bound on what one request's answer expands to (`cmfpipe serve --max-answer`): a body of a few
// megabytes (a long thread, many tiny messages) can expand into an answer many times its size, and
// into far more memory than that while it is made. The bound is checked between the steps of the
// flow and while the answer's text is written, so a request over it stops at about the bound's
// size instead of building the whole answer first and measuring it after.
#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/json.hpp"
#include "cmfpipe/request.hpp"

namespace cmfpipe::host {

// The answer would be larger than its bound: a LimitExceeded the server answers with 413.
class AnswerTooLarge : public LimitExceeded {
  public:
    using LimitExceeded::LimitExceeded;
    ~AnswerTooLarge() override;
};

struct AnswerBound {
    std::size_t max_bytes = std::numeric_limits<std::size_t>::max();
    std::string name = "the answer bound";  // what the error names: "--max-answer"

    // AnswerTooLarge when `bytes` (a size reached, or a floor of the final one) is over: "the
    // answer is over --max-answer N bytes (WHAT)".
    void check(std::size_t bytes, std::string_view what) const {
        if (bytes > max_bytes) fail(what);  // inline: the answer's writer checks often
    }
    [[noreturn]] void fail(std::string_view what) const;
};

// What a prompt expands to is measured as the CMF JSON of its messages (the answer of
// `?to=cmf`), whatever format the answer is in: these are floors of that size, cheap to compute.
// `messages`: a fixed floor per message and per part, and every text byte.
std::size_t cmf_json_floor(const std::vector<cmf::Message>& messages);
// Before the parse: the floor of what the threads among `request`'s rich inputs expand to, once
// for each place their tokens take in the rendered text. Each message of a thread becomes one
// message, each of its parts one part (the parser's rule, spec §6.7).
std::size_t expansion_floor(std::string_view rendered, const RequestContext& request);

// value.dump(2) + "\n", with invalid UTF-8 written as U+FFFD (the server's JSON answers), written
// under `bound`: AnswerTooLarge as soon as the text goes over it.
std::string dump_within(const Json& value, const AnswerBound& bound);

// dump_within(cmf::messages_to_json(messages), bound), byte for byte, but one message's JSON at a
// time: the JSON of all the messages together is never built.
std::string dump_messages_within(const std::vector<cmf::Message>& messages,
                                 const AnswerBound& bound);

}  // namespace cmfpipe::host
