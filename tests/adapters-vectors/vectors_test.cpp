// Prompty vectors.json, the wire half: WireConformance.toRequest (CMF -> request body) and
// Processor.process / processStream (response -> CMF -> the spec's result), through the real
// plugins found by Registry::discover(). Prints passed / failed / skipped per operation; every
// skipped vector is listed with its reason in skip.json.
#include <catch2/catch.hpp>

#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <optional>

#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/core/files.hpp"
#include "cmfpipe/errors.hpp"
#include "process_result.hpp"
#include "prompty_messages.hpp"
#include "support/corpus.hpp"
#include "support/registry.hpp"

namespace {

using cmfpipe::Json;

struct Counts {
    int passed = 0, failed = 0, skipped = 0;
};

const cmfpipe::Registry& registry() {
    return cmfpipe::testing::bundled_plugins();
}

std::vector<Json> vectors_of(const std::string& operation) {
    static const Json all =
        cmfpipe::read_json_file(cmfpipe::testing::require_corpus("prompty") / "vectors.json");
    std::vector<Json> out;
    for (const Json& v : all.at("vectors")) {
        if (v.at("operation") == operation) out.push_back(v.at("vector"));
    }
    return out;
}

// name -> reason, for one operation; every entry must name a vector of the corpus.
std::map<std::string, std::string> skips_of(const std::string& operation) {
    static const Json list = cmfpipe::read_json_file(ADAPTER_VECTORS_SKIP_LIST);
    std::map<std::string, std::string> out;
    for (const Json& s : list.at("skips")) {
        if (s.at("operation") == operation)
            out[s.at("name").get<std::string>()] = s.at("reason").get<std::string>();
    }
    return out;
}

// Key order is not part of a JSON object's meaning.
nlohmann::json unordered(const Json& value) {
    return nlohmann::json::parse(value.dump());
}

void report(const std::string& operation, const Counts& c, std::size_t total,
            const std::map<std::string, std::string>& skips) {
    std::cout << "[adapter vectors] " << operation << ": " << total << " vectors, " << c.passed
              << " passed, " << c.failed << " failed, " << c.skipped << " skipped\n";
    for (const auto& [name, reason] : skips)
        std::cout << "  skipped " << name << ": " << reason << "\n";
    CHECK(c.failed == 0);
    CHECK(static_cast<std::size_t>(c.passed + c.failed + c.skipped) == total);
    CHECK(static_cast<std::size_t>(c.skipped) == skips.size());  // no stale skip entries
    CHECK(c.passed > 0);
}

Json agent_of(const Json& input) {
    return Json{{"model",
                 {{"id", input.at("model_id")},
                  {"provider", input.at("provider")},
                  {"apiType", input.at("apiType")},
                  {"options", input.value("options", Json::object())}}},
                {"tools", input.value("tools", Json::array())},
                {"outputs", input.value("outputs", Json::array())}};
}

// Runs `check` on every vector of `operation` that the skip list does not name, counts the
// outcome (an exception is a failure) and reports the counts.
void run_vectors(const std::string& operation, std::size_t expected_total,
                 const std::function<bool(const Json& input, const Json& vector)>& check) {
    const auto vectors = vectors_of(operation);
    const auto skips = skips_of(operation);
    REQUIRE(vectors.size() == expected_total);
    Counts counts;
    for (const Json& v : vectors) {
        const std::string name = v.at("name");
        if (skips.count(name)) {
            ++counts.skipped;
            continue;
        }
        INFO("vector " << name << ": " << v.value("description", ""));
        bool same = false;
        try {
            same = check(v.at("input"), v);
            CHECK(same);
        } catch (const std::exception& e) {
            FAIL_CHECK("threw: " << e.what());
        }
        ++(same ? counts.passed : counts.failed);
    }
    report(operation, counts, vectors.size(), skips);
}

}  // namespace

TEST_CASE("prompty toRequest vectors through the openai and anthropic plugins") {
    run_vectors("toRequest", 28, [](const Json& input, const Json& v) {
        auto adapter = registry().make_adapter(input.at("provider").get<std::string>());
        Json body = adapter->to_wire(cmfpipe::testing::prompty_to_cmf(input.at("messages")),
                                     agent_of(input), Json::object());
        const Json& expected = v.at("expected").at("request_body");
        INFO("expected " << expected.dump() << "\n     got " << body.dump());
        return unordered(body) == unordered(expected);
    });
}

TEST_CASE("prompty process vectors through the openai and anthropic plugins") {
    run_vectors("process", 21, [](const Json& input, const Json& v) {
        auto adapter = registry().make_adapter(input.at("provider").get<std::string>());
        // The wire form is recognised from the body; only "has outputs" comes from the agent.
        Json options = {{"structured", input.value("has_outputs", false)}};
        auto messages = adapter->from_wire(input.at("response").dump(), options);
        Json result = cmfpipe::testing::process_result(messages);
        const Json& expected = v.at("expected").at("result");
        INFO("expected " << expected.dump() << "\n     got " << result.dump() << "\n     CMF "
                         << cmfpipe::cmf::messages_to_json(messages).dump());
        return unordered(result) == unordered(expected);
    });
}

TEST_CASE("prompty processStream vectors through the openai plugin") {
    run_vectors("processStream", 2, [](const Json& input, const Json& v) {
        const Json& expected = v.at("expected");
        // The provider events as the JSON array of chunks from_wire accepts.
        Json chunks = Json::array();
        for (const Json& e : input.at("events")) {
            REQUIRE(e.at("kind") == "provider");
            chunks.push_back(e.at("value"));
        }
        std::optional<std::string> failure;
        for (const Json& c : expected.at("chunks")) {
            if (c.at("kind") == "failure")
                failure = c.at("failure").at("message").get<std::string>();
        }
        auto adapter = registry().make_adapter(input.at("provider").get<std::string>());
        try {
            auto messages = adapter->from_wire(chunks.dump(), Json::object());
            Json result = cmfpipe::testing::process_result(messages);
            INFO("expected text " << expected.at("partialText") << ", got " << result.dump());
            return !failure && result == expected.at("partialText");
        } catch (const cmfpipe::ValueError& e) {
            INFO("expected failure " << failure.value_or("(none)") << ", got ValueError "
                                     << e.what());
            return failure && e.message() == *failure &&
                   !expected.at("completionCommitted").get<bool>();
        }
    });
}
