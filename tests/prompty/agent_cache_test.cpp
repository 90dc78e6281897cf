// prompty::AgentCache: an unchanged file is answered from the cache, a changed one (modification
// time, size) is loaded again, a removed one is gone, and the cache keeps at most its capacity.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>
#include <vector>

#include "cmfpipe/core/prompty/agent_cache.hpp"
#include "support/scratch.hpp"
#include "support/thrown.hpp"

using namespace cmfpipe;
using prompty::AgentCache;

namespace {

std::string prompt_named(const std::string& name) {
    return "---\nname: " + name + "\n---\nuser:\n{{q}}\n";
}

}  // namespace

TEST_CASE("agent cache: an unchanged file is loaded once") {
    testing::Scratch scratch;
    const std::string file = scratch.write("a.prompty", prompt_named("first"));
    AgentCache cache;
    auto a = cache.load(file);
    auto b = cache.load(file);
    CHECK(a == b);  // the same agent, not a reload
    CHECK(a->name == "first");
    CHECK(cache.hits() == 1);
    CHECK(cache.misses() == 1);
    CHECK(cache.size() == 1);
}

TEST_CASE("agent cache: a changed file is loaded again") {
    testing::Scratch scratch;
    const std::string file = scratch.write("a.prompty", prompt_named("first"));
    AgentCache cache;
    auto first = cache.load(file);

    // Another size.
    scratch.write("a.prompty", prompt_named("second-longer"));
    auto second = cache.load(file);
    CHECK(second->name == "second-longer");
    CHECK(first->name == "first");  // what a caller holds stays as it was

    // The same size, another modification time.
    scratch.write("a.prompty", prompt_named("third-longer!"));
    const auto when = std::filesystem::last_write_time(file);
    std::filesystem::last_write_time(file, when + std::chrono::seconds(5));
    auto third = cache.load(file);
    CHECK(third->name == "third-longer!");
    CHECK(cache.load(file) == third);
    CHECK(cache.hits() == 1);
    CHECK(cache.misses() == 3);
    CHECK(cache.size() == 1);
}

TEST_CASE("agent cache: a removed or broken file is its load error, and is not kept") {
    testing::Scratch scratch;
    const std::string file = scratch.write("a.prompty", prompt_named("first"));
    AgentCache cache;
    (void)cache.load(file);
    std::filesystem::remove(file);
    CHECK(testing::thrown_error([&] { (void)cache.load(file); }) ==
          "ValueError: " + file + ": File not found: " + file);
    CHECK(cache.size() == 0);

    scratch.write("a.prompty", "---\nname: [unclosed\n---\nuser:\nhi\n");
    const std::string broken = testing::thrown_error([&] { (void)cache.load(file); });
    CHECK(broken ==
          "ValueError: " + file + ":3:1: invalid frontmatter YAML: end of sequence flow not found");
    CHECK(cache.size() == 0);
    scratch.write("a.prompty", prompt_named("fixed"));
    CHECK(cache.load(file)->name == "fixed");
    CHECK(cache.misses() == 4);
}

TEST_CASE("agent cache: bounded, the least recently used file goes first") {
    testing::Scratch scratch;
    const std::string a = scratch.write("a.prompty", prompt_named("a"));
    const std::string b = scratch.write("b.prompty", prompt_named("b"));
    const std::string c = scratch.write("c.prompty", prompt_named("c"));
    AgentCache cache({}, 2);
    CHECK(cache.capacity() == 2);
    auto kept_a = cache.load(a);
    (void)cache.load(b);
    CHECK(cache.load(a) == kept_a);  // a is now the most recently used
    (void)cache.load(c);             // b goes
    CHECK(cache.size() == 2);
    CHECK(cache.load(a) == kept_a);
    CHECK(cache.hits() == 2);
    CHECK(cache.misses() == 3);
    (void)cache.load(b);  // loaded again
    CHECK(cache.misses() == 4);
    CHECK(cache.size() == 2);
}

TEST_CASE("agent cache: 8 threads loading and changing files see whole agents") {
    testing::Scratch scratch;
    std::vector<std::string> files;
    for (int i = 0; i < 4; ++i)
        files.push_back(scratch.write("p" + std::to_string(i) + ".prompty", prompt_named("v0")));
    AgentCache cache({}, 3);  // smaller than the files: entries come and go
    std::atomic<int> wrong{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < 8; ++t) {
        pool.emplace_back([&, t] {
            for (int i = 0; i < 200; ++i) {
                auto agent = cache.load(files[static_cast<std::size_t>((t + i) % 4)]);
                if (agent->name.rfind("v", 0) != 0 || agent->instructions != "user:\n{{q}}")
                    ++wrong;
            }
        });
    }
    // Each change replaces the file whole (written beside it, then renamed over it), as an editor
    // or a deployment does, so that a load reads one version or the other.
    for (int i = 1; i <= 20; ++i) {
        const std::string next = scratch.write("next", prompt_named("v" + std::to_string(i)));
        std::filesystem::rename(next, files[static_cast<std::size_t>(i % 4)]);
    }
    for (auto& th : pool) th.join();
    CHECK(wrong == 0);
    CHECK(cache.size() <= 3);
    CHECK(cache.hits() + cache.misses() == 8 * 200);
}
