#pragma once
// The every-prefix check of the prompt-format adapter tests (chatml, harmony): a completion cut
// anywhere parses as far as it goes. For each prefix text[0, n), n from `from` to the end:
//   - parsing raises nothing and gives at least one message;
//   - the last message is flagged custom.incomplete unless the prefix ends with a stop spelling;
//   - every finished message equals the whole text's message (compared through `view`);
//   - `more(prefix, messages)` (optional) checks what is particular to a test.
#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <vector>

#include "cmfpipe/cmf/message.hpp"

namespace cmfpipe::testing {

struct PrefixWalk {
    std::function<std::vector<cmf::Message>(const std::string&)> parse;
    std::function<Json(const cmf::Message&)> view;  // what must be equal (role, parts, ...)
    std::vector<std::string> stops;                 // spellings that finish a message
    std::size_t from = 0;
    std::function<void(const std::string&, const std::vector<cmf::Message>&)> more = nullptr;
};

inline bool flagged_incomplete(const cmf::Message& m) {
    return m.custom() && m.custom()->value("incomplete", false);
}

inline void walk_prefixes(const std::string& text, const PrefixWalk& walk) {
    std::vector<Json> full;
    for (const auto& m : walk.parse(text)) full.push_back(walk.view(m));
    for (std::size_t n = walk.from; n < text.size(); ++n) {
        const std::string prefix = text.substr(0, n);
        INFO("prefix of " << n << " bytes: " << prefix);
        std::vector<cmf::Message> messages;
        REQUIRE_NOTHROW(messages = walk.parse(prefix));
        REQUIRE_FALSE(messages.empty());
        bool at_boundary = false;
        for (const auto& stop : walk.stops) at_boundary = at_boundary || prefix.ends_with(stop);
        CHECK(flagged_incomplete(messages.back()) == !at_boundary);
        const std::size_t finished = at_boundary ? messages.size() : messages.size() - 1;
        REQUIRE(finished <= full.size());
        for (std::size_t i = 0; i < finished; ++i) CHECK(walk.view(messages[i]) == full[i]);
        if (walk.more) walk.more(prefix, messages);
    }
}

}  // namespace cmfpipe::testing
