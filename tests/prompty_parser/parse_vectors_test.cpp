// The "Parser" vectors of corpus/prompty/vectors.json through the real plugin, exactly.
// Each vector runs twice: strict mode off (the rendered text parsed as it is), and strict mode
// on (the default) with the rendered text standing for a template that has no variables, so it
// goes through prepare_template first, as `cmfpipe run` does. Both must give the expected
// messages. Thread inputs of a vector become the request's rich inputs under the nonce token
// that the rendered text holds for them.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <set>

#include "parser_fixture.hpp"
#include "support/corpus.hpp"

using namespace prompty_parser_test;

namespace {

// Vectors this runner does not take, with the reason. None today: every Parser vector is
// parser-level. (The runtime helper's full runner covers the Renderer/Load/Wire stages.)
const std::map<std::string, std::string> skipped = {};

Json parser_vectors() {
    const auto path = cmfpipe::testing::require_corpus("prompty") / "vectors.json";
    std::ifstream in(path);
    Json all = Json::parse(in);
    Json out = Json::array();
    for (const auto& v : all.at("vectors")) {
        if (v.at("contract") == "Parser" && v.at("operation") == "parse")
            out.push_back(v.at("vector"));
    }
    return out;
}

// The token "__PROMPTY_THREAD_<hex>_<name>__" that `text` holds for input `name`.
std::string token_for(const std::string& text, const std::string& name) {
    const std::string prefix = "__PROMPTY_THREAD_";
    const std::string suffix = "_" + name + "__";
    for (auto at = text.find(prefix); at != std::string::npos; at = text.find(prefix, at + 1)) {
        auto end = text.find(suffix, at + prefix.size());
        if (end != std::string::npos) return text.substr(at, end + suffix.size() - at);
    }
    FAIL("no nonce token for thread input '" << name << "' in the rendered text");
    return {};
}

cmfpipe::RequestContext request_for(const Json& input) {
    cmfpipe::RequestContext request;
    if (input.contains("thread_inputs")) {
        const std::string rendered = input.at("rendered").get<std::string>();
        for (const auto& [name, value] : input.at("thread_inputs").items()) {
            request.rich_inputs[token_for(rendered, name)] = {name, cmfpipe::RichKind::thread,
                                                              value};
        }
    }
    return request;
}

}  // namespace

TEST_CASE("prompty parse vectors pass exactly with strict mode off", "[prompty_parser][vectors]") {
    int ran = 0;
    for (const auto& v : parser_vectors()) {
        const std::string name = v.at("name").get<std::string>();
        if (skipped.count(name)) continue;
        INFO("vector " << name);
        auto request = request_for(v.at("input"));
        const auto messages =
            parser().parse(v.at("input").at("rendered").get<std::string>(), strict_off, request);
        CHECK(to_vector_form(messages) == v.at("expected").at("messages"));
        ++ran;
    }
    CHECK(ran == 19);
}

TEST_CASE("prompty parse vectors pass exactly in strict mode after prepare_template",
          "[prompty_parser][vectors]") {
    int ran = 0;
    for (const auto& v : parser_vectors()) {
        const std::string name = v.at("name").get<std::string>();
        if (skipped.count(name)) continue;
        INFO("vector " << name);
        auto request = request_for(v.at("input"));
        const std::string prepared = parser().prepare_template(
            v.at("input").at("rendered").get<std::string>(), Json::object(), request);
        CHECK(request.marker_nonce.size() == 32);
        const auto messages = parser().parse(prepared, Json::object(), request);
        CHECK(to_vector_form(messages) == v.at("expected").at("messages"));
        ++ran;
    }
    CHECK(ran == 19);
}
