// The async Host (core/host/async.hpp): the request flow with Asio completion tokens, the work on
// the Host's pool and the answer on the caller's executor, errors as exceptions.
// Boost 1.74's awaitable.hpp uses std::exchange without including <utility>.
#include <utility>

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <catch2/catch.hpp>
#include <filesystem>
#include <set>
#include <thread>

#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/core/host/async.hpp"
#include "cmfpipe/core/pipeline/config.hpp"
#include "cmfpipe/core/prompty/loader.hpp"
#include "cmfpipe/errors.hpp"
#include "support/registry.hpp"

using namespace cmfpipe;
namespace net = boost::asio;

namespace {

const std::filesystem::path chat_file =
    std::filesystem::path(CMFPIPE_SOURCE_DIR) / "examples" / "prompty" / "chat.prompty";

std::shared_ptr<const host::Service> make_service() {
    auto config = pipeline::load_pipeline_config(std::filesystem::path(CMFPIPE_SOURCE_DIR) /
                                                 "config" / "default.yaml");
    Registry registry = testing::discover_plugins({}, true, false);
    auto processors = pipeline::Pipeline::build(config, registry);
    return std::make_shared<const host::Service>(std::move(registry), std::move(processors));
}

Json inputs_for(const std::string& question) {
    return {{"firstName", "Ada"}, {"question", question}};
}

}  // namespace

TEST_CASE(
    "async host: a callback gets the outcome on its own executor - the work ran on the pool") {
    auto service = make_service();
    auto prompt = std::make_shared<const host::Prompt>(
        service->make_prompt("chat", prompty::load(chat_file)));
    host::Host host(service, 2);
    net::io_context io;
    const auto io_thread = std::this_thread::get_id();

    std::vector<Json> answers(50);
    std::set<std::thread::id> handler_threads;
    for (int i = 0; i < 50; ++i) {
        host.async_run(prompt, inputs_for("q" + std::to_string(i)), "openai",
                       net::bind_executor(io, [&, i](std::exception_ptr error, host::Outcome o) {
                           REQUIRE_FALSE(error);
                           handler_threads.insert(std::this_thread::get_id());
                           answers[i] = std::move(o.output);
                       }));
    }
    io.run();  // returns once every handler ran: the pending work kept it alive
    CHECK(handler_threads == std::set<std::thread::id>{io_thread});
    for (int i = 0; i < 50; ++i) {
        const host::Outcome sync =
            service->run(*prompt, inputs_for("q" + std::to_string(i)), "openai");
        CHECK(answers[i] == sync.output);
    }
}

TEST_CASE("async host: use_future returns the outcome - and rethrows the flow's error") {
    auto service = make_service();
    auto prompt = std::make_shared<const host::Prompt>(
        service->make_prompt("chat", prompty::load(chat_file)));
    host::Host host(service, 1);
    auto future = host.async_run(prompt, inputs_for("What is a nonce?"), "cmf", net::use_future);
    const host::Outcome outcome = future.get();
    CHECK(outcome.output[1]["content"][0]["text"] == "What is a nonce?");
    CHECK_FALSE(outcome.stopped);

    auto failing = host.async_run(prompt, Json{{"firstName", "Ada"}}, "cmf", net::use_future);
    CHECK_THROWS_AS(failing.get(), ValueError);
    auto unknown = host.async_run(prompt, inputs_for("q"), "telepathy", net::use_future);
    CHECK_THROWS_AS(unknown.get(), InvokerError);
}

TEST_CASE("async host: awaitables in coroutines - prompt then completion back through llm_output") {
    auto service = make_service();
    auto prompt = std::make_shared<const host::Prompt>(
        service->make_prompt("chat", prompty::load(chat_file)));
    host::Host host(service, 2);
    net::io_context io;
    Json request;
    pipeline::PipelineResult completed;
    std::string error;
    net::co_spawn(
        io,
        [&]() -> net::awaitable<void> {
            host::Outcome outcome = co_await host.async_run(prompt, inputs_for("Mail me"), "openai",
                                                            net::use_awaitable);
            request = outcome.output;
            const std::string completion =
                R"({"choices": [{"index": 0, "message": {"role": "assistant",
                   "content": "Write to ada@example.com"}, "finish_reason": "stop"}]})";
            completed = co_await host.async_complete("openai", completion, Json::object(),
                                                     net::use_awaitable);
            try {
                co_await host.async_process("llm_sideways", {}, net::use_awaitable);
            } catch (const ValueError& e) {
                error = e.what();
            }
        },
        net::detached);
    io.run();
    CHECK(request["model"] == "gpt-4o-mini");
    REQUIRE(completed.messages.size() == 1);
    // The default pipeline's pii_redactor ran at llm_output.
    CHECK(cmf::message_to_json(completed.messages[0])["content"][0]["text"] ==
          "Write to [REDACTED:EMAIL]");
    CHECK(completed.decisions.size() == 1);
    CHECK(error == "unknown hook 'llm_sideways' (known: llm_input, llm_output)");
}
