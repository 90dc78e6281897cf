// embedding-host PROMPT.prompty PIPELINE.yaml COUNT
//
// An application with its own io_context that uses cmfpipe as a library: it loads one prompt and
// one processor pipeline, then prepares COUNT OpenAI requests at once through the async Host (each
// in its own coroutine; the rendering runs on the Host's pool, not on this io_context's thread)
// and prints each request body on one line, in the order the requests were started.
// Boost 1.74's awaitable.hpp uses std::exchange without including <utility>.
#include <utility>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cmfpipe/core/host/async.hpp>
#include <cmfpipe/core/pipeline/config.hpp>
#include <cmfpipe/core/prompty/loader.hpp>
#include <cmfpipe/errors.hpp>
#include <iostream>
#include <string>
#include <vector>

namespace asio = boost::asio;

int main(int argc, char** argv) {
    if (argc != 4) {
        std::cerr << "usage: embedding-host PROMPT.prompty PIPELINE.yaml COUNT\n";
        return 2;
    }
    try {
        // Once, at start: the plugins (found beside libcmfpipe.so), the pipeline, the prompt.
        cmfpipe::Registry registry = cmfpipe::Registry::discover();
        auto config = cmfpipe::pipeline::load_pipeline_config(argv[2]);
        auto processors = cmfpipe::pipeline::Pipeline::build(config, registry);
        auto service = std::make_shared<const cmfpipe::host::Service>(std::move(registry),
                                                                      std::move(processors));
        auto prompt = std::make_shared<const cmfpipe::host::Prompt>(
            service->make_prompt("prompt", cmfpipe::prompty::load(argv[1])));
        cmfpipe::host::Host host(service, 2);

        // Per request: a coroutine on the application's own io_context.
        asio::io_context io;
        const int count = std::stoi(argv[3]);
        std::vector<std::string> bodies(static_cast<std::size_t>(count));
        int failures = 0;
        for (int i = 0; i < count; ++i) {
            asio::co_spawn(
                io,
                [&, i]() -> asio::awaitable<void> {
                    const cmfpipe::Json inputs = {{"question", "question " + std::to_string(i)}};
                    try {
                        cmfpipe::host::Outcome outcome =
                            co_await host.async_run(prompt, inputs, "openai", asio::use_awaitable);
                        bodies[static_cast<std::size_t>(i)] =
                            outcome.stopped ? "stopped" : outcome.output.dump();
                    } catch (const cmfpipe::Error& e) {
                        std::cerr << "request " << i << ": " << e.kind() << ": " << e.what()
                                  << "\n";
                        ++failures;
                    }
                },
                asio::detached);
        }
        io.run();  // returns when every request is answered
        for (const auto& body : bodies) std::cout << body << "\n";
        return failures == 0 ? 0 : 1;
    } catch (const cmfpipe::Error& e) {
        std::cerr << "embedding-host: " << e.kind() << ": " << e.what() << "\n";
        return 1;
    }
}
