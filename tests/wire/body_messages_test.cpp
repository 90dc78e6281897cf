// wire/body_messages.hpp: origins, part pairing, list rebuilding and member replacement, the
// pieces the adapters' body calls are made of (their use: tests/openai, tests/anthropic).
#include <catch2/catch.hpp>

#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/wire/body_messages.hpp"

namespace {

using namespace cmfpipe::cmf;
using cmfpipe::Json;
namespace wire = cmfpipe::wire;
using Pairs = std::vector<std::optional<std::size_t>>;

PartPtr text(const char* t) {
    return ContentPart::text(t);
}
PartPtr call(const char* id) {
    return ContentPart::make(ToolCall{id, "f", Json::object(), std::nullopt});
}

}  // namespace

TEST_CASE("wire: a body origin is provenance and its index is read back exactly") {
    Message m = wire::with_body_origin(Message::text(Role::user, "hi"), "x request", "messages[3]");
    CHECK(m.provenance()->source == "x request");
    CHECK(wire::body_origin(m, "x request") == "messages[3]");
    CHECK(wire::body_origin(m, "y request") == std::nullopt);
    CHECK(wire::body_index("messages[3]", "messages") == 3u);
    CHECK(wire::body_index("messages[12]", "messages") == 12u);
    CHECK(wire::body_index("input[3]", "messages") == std::nullopt);
    CHECK(wire::body_index("messages[]", "messages") == std::nullopt);
    CHECK(wire::body_index("messages[3x]", "messages") == std::nullopt);
    CHECK(wire::body_index("messages3", "messages") == std::nullopt);
}

TEST_CASE("wire: parts pair by position, by value, and in the gaps by type") {
    // Same shape: by position, a rewritten part stands for the one it replaced.
    CHECK(wire::pair_parts({text("a"), call("1")}, {text("A"), call("2")}) == Pairs{0, 1});
    // Removed and inserted parts.
    CHECK(wire::pair_parts({text("a"), text("b"), text("c")}, {text("a"), text("c")}) ==
          Pairs{0, 2});
    CHECK(wire::pair_parts({text("a"), text("b")}, {text("a"), text("x"), text("b")}) ==
          Pairs{0, std::nullopt, 1});
    // Rewritten while another was removed: the gap before "b" pairs the text with the text.
    CHECK(wire::pair_parts({text("a"), text("b"), call("1")}, {text("A"), text("b")}) ==
          Pairs{0, 1});
    // A call where a text was: no pair.
    CHECK(wire::pair_parts({text("a"), text("b")}, {call("1"), text("b"), text("c")}) ==
          Pairs{std::nullopt, 1, std::nullopt});
}

TEST_CASE("wire: a rebuilt list keeps original order, new elements after their predecessor") {
    wire::ListRebuild list;
    list.at(2, "c");
    list.added("c+");
    list.at(0, "a");
    list.next_message();
    list.added("first");
    list.at(1, "b");
    list.appended("last");
    CHECK(list.array().dump() == R"(["first","a","b","c","c+","last"])");
}

TEST_CASE("wire: a rewritten element keeps the members its part does not stand for") {
    const Json original = {{"type", "tool_result"},
                           {"tool_use_id", "t"},
                           {"content", "x"},
                           {"is_error", true},
                           {"cache_control", {{"type", "ephemeral"}}}};
    const Json written = {{"type", "tool_result"}, {"tool_use_id", "t"}, {"content", "y"}};
    CHECK(
        wire::rewrite_element(original, written, {"tool_use_id", "content", "is_error"}).dump() ==
        R"({"type":"tool_result","tool_use_id":"t","content":"y","cache_control":{"type":"ephemeral"}})");
}

TEST_CASE("wire: members replaced in place, removed by null, added before a member") {
    const Json body = {{"model", "m"}, {"system", "s"}, {"messages", Json::array()}, {"x", 1}};
    CHECK(wire::replace_members(body, {{"system", nullptr}, {"messages", {1}}}).dump() ==
          R"({"model":"m","messages":[1],"x":1})");
    const Json bare = {{"model", "m"}, {"messages", Json::array()}};
    CHECK(wire::replace_members(bare, {{"system", "new"}}, "messages").dump() ==
          R"({"model":"m","system":"new","messages":[]})");
    CHECK(wire::replace_members(bare, {{"instructions", "i"}}, "input").dump() ==
          R"({"model":"m","messages":[],"instructions":"i"})");
}

TEST_CASE("wire: tool result content that providers take as blocks") {
    CHECK(wire::is_block_array(Json::parse(R"([{"type":"text","text":"a"}])")));
    CHECK(wire::is_block_array(Json::array()));
    CHECK_FALSE(wire::is_block_array(Json::parse(R"([1,2])")));
    CHECK_FALSE(wire::is_block_array(Json::parse(R"([{"text":"a"}])")));
    CHECK_FALSE(wire::is_block_array(Json::parse(R"({"type":"text"})")));
}
