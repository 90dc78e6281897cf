// The openai adapter's reader of a request's plain messages (plain_chat_request_messages: each a
// role and a string content, straight off the tree) against its readers (read_chat_request_
// messages, the full path) on thousands of generated request bodies and byte mutations of their
// text: whenever the plain reader answers, the readers give the same messages (parts, provenance,
// custom); whenever the readers refuse a body, the plain reader does not answer (the adapter then
// takes the readers, which give the error).
#include <catch2/catch.hpp>

#include <random>

#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/json_parse.hpp"
#include "openai_wire.hpp"
#include "support/byte_edits.hpp"
#include "support/registry.hpp"

namespace {

using cmfpipe::Json;
namespace openai = cmfpipe::openai;

std::optional<std::string> plain_full_read(const Json& body) {
    try {
        return cmfpipe::cmf::messages_to_json(openai::read_chat_request_messages(body)).dump();
    } catch (const cmfpipe::Error&) {
        return std::nullopt;
    }
}

std::optional<std::string> plain_fast_read(const Json& body) {
    const auto messages = openai::plain_chat_request_messages(body);
    if (!messages) return std::nullopt;
    return cmfpipe::cmf::messages_to_json(*messages).dump();
}

// Request bodies: plain messages mostly, with every member the plain reader looks at sometimes
// of another form (a name, blocks, calls, a tool result, an unknown member, a role it must leave).
class RequestMaker {
  public:
    explicit RequestMaker(std::uint32_t seed) : random_(seed) {}

    Json body() {
        if (chance(0.02)) return pick<Json>({Json::array(), Json("x"), Json()});
        Json body = Json::object();
        if (chance(0.9)) body["model"] = "m";
        if (chance(0.97)) body["messages"] = chance(0.98) ? messages() : Json::object();
        if (chance(0.2)) body["stream"] = chance(0.5);
        if (chance(0.1)) body["temperature"] = 0.5;
        return body;
    }

  private:
    bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(random_) < p; }
    template <class T>
    T pick(std::initializer_list<T> options) {
        std::uniform_int_distribution<std::size_t> at(0, options.size() - 1);
        return *(options.begin() + at(random_));
    }
    Json role() {
        if (chance(0.9)) return pick<Json>({"user", "system", "assistant", "developer"});
        return pick<Json>({"tool", "function", "User", Json(), 3});
    }
    Json content() {
        if (chance(0.9)) {
            return pick<Json>({"hi", "", "caf\xC3\xA9 \xE2\x82\xAC", "line\nbreak \"quoted\"",
                               "write to joe@example.com", Json()});
        }
        return pick<Json>({Json::array({{{"type", "text"}, {"text", "block"}}}), Json(5),
                           Json::object(), Json::array()});
    }
    Json message() {
        if (chance(0.02)) return pick<Json>({Json("m"), Json(), Json::array()});
        Json message = Json::object();
        std::vector<std::pair<std::string, Json>> members;
        if (chance(0.97)) members.emplace_back("role", role());
        if (chance(0.95)) members.emplace_back("content", content());
        if (chance(0.04)) members.emplace_back("name", pick<Json>({"ann", Json(), 4}));
        if (chance(0.03)) {
            members.emplace_back(
                "tool_calls", Json::array({{{"id", "c1"},
                                            {"type", "function"},
                                            {"function", {{"name", "f"}, {"arguments", "{}"}}}}}));
        }
        if (chance(0.02)) members.emplace_back("tool_call_id", "c1");
        if (chance(0.03))
            members.emplace_back(pick<std::string>({"refusal", "reasoning_content"}),
                                 pick<Json>({"no", Json()}));
        if (chance(0.03)) members.emplace_back("cache_control", Json{{"type", "ephemeral"}});
        if (chance(0.02)) members.emplace_back("extra", pick<Json>({"text", 1, Json()}));
        std::shuffle(members.begin(), members.end(), random_);
        for (auto& [key, value] : members) message[key] = std::move(value);
        return message;
    }
    Json messages() {
        Json out = Json::array();
        const std::size_t n = chance(0.05) ? 0 : 1 + random_() % 4;
        for (std::size_t i = 0; i < n; ++i) out.push_back(message());
        return out;
    }

    std::mt19937 random_;
};

struct PlainTally {
    std::size_t fast = 0, refused = 0, total = 0;
};

void check_plain_paths(const Json& body, PlainTally& tally) {
    const auto fast = plain_fast_read(body);
    const auto full = plain_full_read(body);
    ++tally.total;
    INFO(body.dump());
    if (fast) {
        REQUIRE(full.has_value());
        REQUIRE(*fast == *full);
        // The same messages by value too (operator==: parts and extensions).
        REQUIRE(*openai::plain_chat_request_messages(body) ==
                openai::read_chat_request_messages(body));
        ++tally.fast;
    }
    if (!full) {
        REQUIRE_FALSE(fast.has_value());
        ++tally.refused;
    }
}

}  // namespace

TEST_CASE("openai plain request messages: the common request reads as the readers read it") {
    const Json body = cmfpipe::parse_json(
        R"({"model": "m", "messages": [{"role": "system", "content": "be brief"},)"
        R"( {"role": "user", "content": "hi"}, {"content": null, "role": "assistant"}]})",
        "body");
    const auto plain = openai::plain_chat_request_messages(body);
    REQUIRE(plain.has_value());
    REQUIRE(plain->size() == 3);
    CHECK((*plain)[0].text_content() == "be brief");
    CHECK((*plain)[1].role() == cmfpipe::cmf::Role::user);
    CHECK((*plain)[2].size() == 0);
    CHECK((*plain)[2].provenance()->message_id == "messages[2]");
    CHECK((*plain)[2].provenance()->source == "openai request");
    CHECK(*plain == openai::read_chat_request_messages(body));
    // The adapter's request_messages (what the proxy calls) gives the same.
    CHECK(cmfpipe::testing::bundled_adapter("openai").request_messages(
              body, Json{{"apiType", "chat"}}) == *plain);
    // What it leaves to the readers: a name, blocks, a tool result, an unknown member.
    for (const char* text :
         {R"({"messages": [{"role": "user", "content": "x", "name": "ann"}]})",
          R"({"messages": [{"role": "user", "content": [{"type": "text", "text": "x"}]}]})",
          R"({"messages": [{"role": "tool", "content": "x", "tool_call_id": "c"}]})",
          R"({"messages": [{"role": "user", "content": "x", "cache_control": 1}]})",
          R"({"messages": [{"content": "x"}]})", R"({"messages": {}})", R"([])"}) {
        INFO(text);
        CHECK_FALSE(openai::plain_chat_request_messages(cmfpipe::parse_json(text, "body")));
    }
}

TEST_CASE("openai plain request messages: generated bodies, both paths alike") {
    RequestMaker maker(29);
    PlainTally tally;
    for (std::size_t i = 0; i < 5000; ++i) check_plain_paths(maker.body(), tally);
    INFO("fast " << tally.fast << ", refused " << tally.refused << " of " << tally.total);
    CHECK(tally.fast > 1500);
    CHECK(tally.refused > 300);
}

TEST_CASE("openai plain request messages: mutated bodies, both paths alike") {
    RequestMaker maker(3);
    std::mt19937 random(11);
    PlainTally tally;
    const std::string bytes = "{}[],:\" 0an";
    for (std::size_t i = 0; i < 5000; ++i) {
        std::string text = maker.body().dump();
        cmfpipe::testing::edit_bytes(text, 1, random, bytes);
        const cmfpipe::JsonParse parsed = cmfpipe::try_parse_json(text);
        if (parsed.value) check_plain_paths(*parsed.value, tally);
    }
    INFO("fast " << tally.fast << ", refused " << tally.refused << " of " << tally.total);
    CHECK(tally.fast > 300);
    CHECK(tally.refused > 100);
}
