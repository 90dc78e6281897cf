#pragma once
// Random JSON texts for the differential tests of the text readers (tests/anthropic
// request_text_test.cpp and answer_text_test.cpp, tests/openai request_text_test.cpp): objects of
// members in any order, spelled with the white space JSON allows, from values the tests list (the
// usual one mostly).
#include <algorithm>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "support/byte_edits.hpp"

namespace cmfpipe::testing {

class JsonTextMaker {
  public:
    explicit JsonTextMaker(std::uint32_t seed) : random_(seed) {}

    bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(random_) < p; }
    // Any of `options`, equally likely.
    std::string pick(std::initializer_list<std::string> options) {
        std::uniform_int_distribution<std::size_t> at(0, options.size() - 1);
        return *(options.begin() + at(random_));
    }
    // The first of `options` mostly, else any.
    std::string usual(std::initializer_list<std::string> options) {
        return chance(0.93) ? *options.begin() : pick(options);
    }
    std::string space() { return chance(0.3) ? pick({" ", "\n  ", "\t", "\r\n", "  "}) : ""; }
    std::string colon() { return space() + ":" + space(); }
    // `"key": value` onto `members` with probability p (`key` unquoted, written as it is given).
    void maybe(std::vector<std::string>& members, double p, const std::string& key,
               const std::string& value) {
        if (chance(p)) members.push_back("\"" + key + "\"" + colon() + value);
    }
    // The members in a random order; sometimes (`twice`; 0: never, no draw) one twice.
    std::string object(std::vector<std::string> members, double twice = 0.03) {
        if (twice > 0 && chance(twice) && !members.empty()) members.push_back(members.front());
        std::shuffle(members.begin(), members.end(), random_);
        std::string out = "{" + space();
        for (std::size_t i = 0; i < members.size(); ++i)
            out += (i ? space() + "," + space() : "") + members[i];
        return out + space() + "}";
    }
    std::string array(const std::vector<std::string>& elements) {
        std::string out = "[" + space();
        for (std::size_t i = 0; i < elements.size(); ++i)
            out += (i ? "," + space() : "") + elements[i];
        return out + space() + "]";
    }
    std::size_t below(std::size_t n) { return random_() % n; }
    std::mt19937& random() { return random_; }

    // One to two byte edits of `text` (erase, insert, overwrite, a span twice).
    void mutate(std::string& text) {
        const std::string bytes = std::string("{}[],:\"\\ 0atfn-\n\x01\xC3\xFF") + '\0';
        edit_bytes(text, 1 + random_() % 2, random_, bytes, LastEdit::repeat_span);
    }

  private:
    std::mt19937 random_;
};

}  // namespace cmfpipe::testing
