#pragma once
// JSON text as nlohmann's dump(indent_step) writes it (pretty, UTF-8 kept as it is, invalid
// UTF-8 as U+FFFD: Json::error_handler_t::replace), byte for byte, written straight into a string
// under an AnswerBound. dump() goes through a virtual call and a UTF-8 decoder step for every
// byte; this writer copies runs of plain text whole (strings by the sdk's append_json_string,
// which leaves one that is not valid UTF-8 to nlohmann's dump) and hands binary values to
// nlohmann's own serializer.
#include <memory>
#include <string>
#include <string_view>

#include "cmfpipe/core/host/answer_bound.hpp"
#include "cmfpipe/json.hpp"

namespace cmfpipe::host {

class JsonTextWriter {
  public:
    JsonTextWriter(std::string& text, const AnswerBound& bound, unsigned indent_step);
    ~JsonTextWriter();
    JsonTextWriter(const JsonTextWriter&) = delete;
    JsonTextWriter& operator=(const JsonTextWriter&) = delete;

    // `value` at `indent` spaces in (where its first line already stands): AnswerTooLarge as soon
    // as the text goes over the bound.
    void value(const Json& value, unsigned indent);
    void raw(std::string_view text);

  private:
    class Fallback;  // nlohmann's serializer over the same string, made when first needed

    void string(const std::string& text);
    void indent(unsigned spaces);
    void delegate(const Json& value, unsigned indent);
    void check() const { bound_.check(text_.size(), "as it was written"); }

    std::string& text_;
    const AnswerBound& bound_;
    unsigned step_;
    std::unique_ptr<Fallback> fallback_;
};

}  // namespace cmfpipe::host
