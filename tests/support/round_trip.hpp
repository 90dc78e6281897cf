#pragma once
// The round-trip check of the provider adapter tests: CMF -> to_wire -> from_wire(dump) -> CMF
// gives the messages back, compared message by message with the wire body and the result shown
// on failure.
#include <catch2/catch.hpp>

#include <vector>

#include "cmfpipe/adapter.hpp"
#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/cmf/message.hpp"

namespace cmfpipe::testing {

inline void check_round_trip(const Adapter& adapter, const std::vector<cmf::Message>& original,
                             const Json& agent, const Json& options = Json::object()) {
    Json body = adapter.to_wire(original, agent, options);
    auto back = adapter.from_wire(body.dump(), Json::object());
    INFO(body.dump(2));
    INFO(cmf::messages_to_json(back).dump());
    REQUIRE(back.size() == original.size());
    for (std::size_t i = 0; i < original.size(); ++i) {
        INFO("message " << i);
        CHECK(back[i] == original[i]);
    }
}

}  // namespace cmfpipe::testing
