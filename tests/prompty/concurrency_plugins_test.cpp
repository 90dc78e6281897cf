// Many requests at once through the real bundled jinja2 renderer and prompty parser: every
// request's thread input comes back as that request's messages, never another's.
#include <catch2/catch.hpp>

#include <atomic>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cmfpipe/cmf/message.hpp"
#include "cmfpipe/core/prompty/loader.hpp"
#include "cmfpipe/core/prompty/prepare.hpp"
#include "support/registry.hpp"

using namespace cmfpipe;

TEST_CASE(
    "prepare from 8 threads x 300 requests with thread inputs: no nonce or thread crosses "
    "requests") {
    const Registry& registry = cmfpipe::testing::bundled_plugins();
    const prompty::Agent agent =
        prompty::load(std::string(CMFPIPE_SOURCE_DIR) + "/examples/prompty/thread.prompty");
    const prompty::Invokers invokers =
        prompty::make_invokers(registry, agent);  // shared by all threads

    constexpr int threads = 8, per_thread = 300;
    std::vector<std::vector<std::string>> placeholders(threads), markers(threads);
    std::atomic<int> wrong{0};
    std::vector<std::string> first_failure(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
            for (int i = 0; i < per_thread; ++i) {
                const std::string tag = std::to_string(t) + "-" + std::to_string(i);
                Json inputs = {
                    {"history",
                     Json::array({{{"role", "user"}, {"content", "earlier " + tag}},
                                  {{"role", "assistant"}, {"content", "reply " + tag}}})},
                    {"question", "now " + tag}};
                prompty::Prepared p = prompty::prepare(invokers, agent, inputs);
                std::string seen;
                for (const auto& m : p.messages)
                    seen += std::string(cmf::to_string(m.role())) + ":" + m.text_content() + "|";
                const std::string expected =
                    "system:You are a helpful assistant. Keep answers short.|user:earlier " + tag +
                    "|assistant:reply " + tag + "|user:now " + tag + "|";
                if (seen != expected || p.request.rich_inputs.size() != 1) {
                    if (wrong++ == 0) first_failure[t] = seen;
                }
                placeholders[t].push_back(p.request.rich_inputs.begin()->first);
                markers[t].push_back(p.request.marker_nonce);
            }
        });
    }
    for (auto& th : pool) th.join();
    INFO("first mismatch: " << [&] {
        for (auto& f : first_failure)
            if (!f.empty()) return f;
        return std::string();
    }());
    CHECK(wrong == 0);
    std::set<std::string> distinct_placeholders, distinct_markers;
    for (int t = 0; t < threads; ++t) {
        distinct_placeholders.insert(placeholders[t].begin(), placeholders[t].end());
        distinct_markers.insert(markers[t].begin(), markers[t].end());
    }
    CHECK(distinct_placeholders.size() == threads * per_thread);  // a fresh nonce for every render
    CHECK(distinct_markers.size() == threads * per_thread);
}
