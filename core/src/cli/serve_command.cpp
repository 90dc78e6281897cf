// cmfpipe serve: the HTTP server (core/serve/server.hpp) over the prompts of a folder and the
// processor pipeline, until SIGTERM or SIGINT; SIGHUP loads them again.
#include <malloc.h>
#include <sys/resource.h>

#include <charconv>
#include <iostream>
#include <memory>
#include <optional>

#include "../host/machine_share.hpp"
#include "../serve/memory_budget.hpp"
#include "cmfpipe/core/host/async.hpp"
#include "cmfpipe/core/host/prompt_catalog.hpp"
#include "cmfpipe/core/pipeline/config.hpp"
#include "cmfpipe/core/serve/server.hpp"
#include "cmfpipe/core/tracing.hpp"
#include "command.hpp"
#include "default_pipeline.hpp"

namespace cmfpipe::cli {
namespace {

// A whole number of `option` within [low, high].
std::size_t count_option(const Arguments& args, const std::string& option, std::size_t fallback,
                         std::size_t low, std::size_t high) {
    const auto text = args.value(option);
    if (!text) return fallback;
    std::size_t value = 0;
    const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
    if (error != std::errc() || end != text->data() + text->size() || value < low || value > high) {
        throw UsageError("--" + option + " wants a whole number from " + std::to_string(low) +
                         " to " + std::to_string(high) + ", got '" + *text + "'");
    }
    return value;
}

// HOST:PORT, [IPV6]:PORT.
void parse_listen(const std::string& text, serve::ServerOptions& options) {
    const std::size_t colon = text.rfind(':');
    if (colon == std::string::npos || colon == 0) {
        throw UsageError("--listen wants HOST:PORT, got '" + text + "'");
    }
    std::string host = text.substr(0, colon);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    unsigned port = 0;
    const std::string digits = text.substr(colon + 1);
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
    if (digits.empty() || error != std::errc() || end != digits.data() + digits.size() ||
        port > 65535) {
        throw UsageError("--listen wants a port from 0 to 65535, got '" + digits + "'");
    }
    options.host = host;
    options.port = static_cast<unsigned short>(port);
}

// --busy-poll auto (the default: adaptive, up to ServerOptions' limit) or a fixed MICROSECONDS.
void parse_busy_poll(const Arguments& args, serve::ServerOptions& options) {
    const auto text = args.value("busy-poll");
    if (!text || *text == "auto") return;
    try {
        options.busy_poll =
            std::chrono::microseconds(count_option(args, "busy-poll", 0, 0, 10'000));
    } catch (const UsageError&) {
        throw UsageError("--busy-poll wants auto or a whole number from 0 to 10000, got '" + *text +
                         "'");
    }
    options.busy_poll_adaptive = false;
}

// What the pool and the buffer budget were sized from, for the operator who wonders why a
// container runs fewer threads than its node has cores.
std::string sizing_line(const Arguments& args, const host::MachineShare& share, std::size_t threads,
                        std::size_t max_buffered) {
    const std::string threads_from = args.value("threads") ? "--threads" : share.cores_from;
    const std::string memory =
        share.memory_from + ", " + std::to_string(share.memory >> 20) + " MiB";
    const std::string buffered_from =
        args.value("max-buffered") ? "--max-buffered"
        : max_buffered == share.memory / 8
            ? "an eighth of " + memory
            : "two requests at their largest, over an eighth of " + memory;
    return "cmfpipe serve: a pool of " + std::to_string(threads) +
           (threads == 1 ? " thread (" : " threads (") + threads_from + "), a buffer budget of " +
           std::to_string(max_buffered >> 20) + " MiB (" + buffered_from + ")\n";
}

// Every connection is a file descriptor: the soft limit (often 1024) goes up to the hard one.
void raise_open_files_limit() {
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return;
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
}

// The pipeline, the plugins it needs and the prompts, from the files the options name: at the
// start, and again on each reload (SIGHUP, POST /admin/reload), all or nothing.
serve::Served load_served(const Arguments& args) {
    std::optional<pipeline::PipelineConfig> config;
    if (!args.flag("no-pipeline"))
        config = pipeline::load_pipeline_config(pipeline_config_file(args));
    Registry registry =
        load_registry(args, config ? config->plugin_dirs : std::vector<std::filesystem::path>{});
    std::optional<pipeline::Pipeline> processors;
    if (config) processors.emplace(pipeline::Pipeline::build(*config, registry));
    serve::Served served;
    served.service =
        std::make_shared<const host::Service>(std::move(registry), std::move(processors));
    if (auto folder = args.value("prompts")) {
        prompty::LoadOptions load_options;
        for (const auto& root : args.values("allow-root"))
            load_options.allowed_roots.emplace_back(root);
        load_options.allowed_env = args.values("allow-env");
        served.prompts =
            std::make_shared<const host::PromptCatalog>(*folder, served.service, load_options);
    }
    return served;
}

// The server makes and frees the same large buffers request after request (a streamed answer's
// turn so far and the copies the processors see of it, megabytes for a long answer): below
// 4 MiB they come from malloc's arenas, which keep up to 8 MiB free, rather than from fresh
// pages of the kernel each time. Left to malloc's own thresholds, a 1 MB streamed answer cost
// ~1300 page faults (~2.5 us each on this VM): 1.85 -> 1.2 us of CPU a delta with the default
// pipeline, 0 faults (docs/hot-path.md, "Streams: a read at a time").
void keep_large_buffers() {
    mallopt(M_MMAP_THRESHOLD, 4 << 20);
    mallopt(M_TRIM_THRESHOLD, 8 << 20);
}

int run_serve(const Arguments& args) {
    if (args.value("config") && args.flag("no-pipeline")) {
        throw UsageError("--config and --no-pipeline exclude each other");
    }
    keep_large_buffers();
    serve::ServerOptions options;
    parse_listen(args.value("listen").value_or("127.0.0.1:8080"), options);
    options.max_body = count_option(args, "max-body", options.max_body, 1, std::size_t(1) << 32);
    options.max_answer =
        count_option(args, "max-answer", 4 * options.max_body, 1, std::size_t(1) << 36);
    options.max_buffered = count_option(args, "max-buffered", 0, 0, std::size_t(1) << 40);
    if (options.max_buffered != 0 && options.max_buffered < options.max_body) {
        throw UsageError("--max-buffered " + std::to_string(options.max_buffered) +
                         " is under --max-body " + std::to_string(options.max_body) +
                         ": no request could be read");
    }
    options.io_threads = count_option(args, "io-threads", 1, 1, 64);
    parse_busy_poll(args, options);
    options.client_timeout =
        std::chrono::seconds(count_option(args, "client-timeout", 30, 1, 3600));
    options.drain_delay = std::chrono::seconds(count_option(args, "drain-delay", 5, 0, 3600));
    options.grace = std::chrono::seconds(count_option(args, "grace", 10, 0, 3600));
    const host::MachineShare share = host::machine_share();
    const std::size_t threads = count_option(args, "threads", share.cores, 1, 256);
    for (const auto& pair : args.values("upstream")) {
        const std::size_t eq = pair.find('=');
        const std::string name = pair.substr(0, eq);
        if (eq == std::string::npos || (name != "openai" && name != "anthropic")) {
            throw UsageError("--upstream wants openai=URL or anthropic=URL, got '" + pair + "'");
        }
        options.upstreams[name] = pair.substr(eq + 1);
    }
    options.upstream_timeout =
        std::chrono::seconds(count_option(args, "upstream-timeout", 300, 1, 3600));
    options.upstream_total_timeout =
        std::chrono::seconds(count_option(args, "upstream-total-timeout", 600, 1, 86400));
    options.upstream_ca = args.value("upstream-ca").value_or("");
    options.stream_holdback =
        count_option(args, "stream-holdback", options.stream_holdback, 0, 1 << 20);
    if (auto stop = args.value("stream-stop")) {
        if (*stop == "error-event") {
            options.stream_stop = StreamStop::error_event;
        } else if (*stop != "content-filter") {
            throw UsageError("--stream-stop wants content-filter or error-event, got '" + *stop +
                             "'");
        }
    }

    options.admin_token = args.value("admin-token").value_or("");
    options.admin_remote = args.flag("admin-remote");
    if (options.admin_remote && options.admin_token.empty())
        throw UsageError("--admin-remote wants --admin-token");

    serve::Served served = load_served(args);
    std::shared_ptr<tracing::Tracer> tracer;
    if (auto trace_file = args.value("trace")) {
        tracer = std::make_shared<tracing::Tracer>();
        tracer->add("jsonl", std::make_shared<tracing::JsonLinesBackend>(*trace_file));
    }

    raise_open_files_limit();
    // The budget from the share read above: the server need not read the cgroup files again.
    if (options.max_buffered == 0) {
        options.max_buffered =
            serve::default_max_buffered(options.max_body, options.max_answer, share.memory);
    }
    std::cerr << sizing_line(args, share, threads, options.max_buffered) << std::flush;
    auto host = std::make_shared<host::Host>(served.service, threads);
    serve::Server server(host, served.prompts, options, std::cerr, tracer);
    server.set_loader([&args] { return load_served(args); });
    server.run();
    return 0;
}

std::vector<OptionSpec> serve_options() {
    auto options = registry_options();
    options.insert(
        options.begin(),
        {{"listen", "HOST:PORT",
          "where to accept connections (default 127.0.0.1:8080; port 0 picks a free one)"},
         {"prompts", "DIR",
          "serve DIR/NAME.prompty at POST /v1/prompts/NAME (reloaded when changed)"},
         {"config", "PIPELINE.yaml",
          "the processor pipeline (default: the installed config/default.yaml)"},
         {"no-pipeline", "", "no processors"},
         {"upstream", "NAME=URL",
          "proxy POST /v1/chat/completions to openai=URL, POST /v1/messages to anthropic=URL "
          "(http:// or https://, e.g. https://api.openai.com/v1)",
          true},
         {"upstream-timeout", "SECONDS",
          "an upstream call's limit, for a stream the longest silence between two events "
          "(default 300); over it: 504"},
         {"upstream-total-timeout", "SECONDS",
          "the whole of an upstream call, streamed or not (default 600); over it: 504"},
         {"upstream-ca", "FILE.pem", "also trust these certificates for https upstreams"},
         {"stream-holdback", "CHARS",
          "characters of streamed text held back until the processors have seen what follows "
          "(default 64; 0: none)"},
         {"stream-stop", "content-filter|error-event",
          "how a stream a processor stops after part of the answer went out ends: as the "
          "provider's content filter (default) or with its error event"},
         {"max-body", "BYTES", "largest request body (default 8388608); larger: 413"},
         {"max-answer", "BYTES",
          "largest answer a prompt expands to (default 4 x --max-body); larger: 413"},
         {"max-buffered", "BYTES",
          "request bodies and unsent answers held at once, all clients together (default: an "
          "eighth of the memory it may use: the machine's, or its cgroup's limit); over it: 503"},
         {"threads", "N",
          "threads of the pool that renders and runs processors (default: the cores it may use: "
          "the machine's, or fewer by its CPU affinity or cgroup CPU quota)"},
         {"io-threads", "N",
          "threads that read and write connections, each with its own clients and upstream "
          "connections (default 1)"},
         {"busy-poll", "auto|MICROSECONDS",
          "after its last work an I/O thread polls its sockets before it sleeps: lower latency "
          "when work comes in quick succession, for CPU. auto (default): as long as the gaps "
          "between its work have been short, up to 200; MICROSECONDS: always that long; 0: it "
          "sleeps at once"},
         {"client-timeout", "SECONDS",
          "time a client has to send a request (idle keep-alive included) or read an answer "
          "(default 30)"},
         {"admin-token", "TOKEN",
          "turn on POST /admin/reload for requests bearing Authorization: Bearer TOKEN "
          "(from this machine only)"},
         {"admin-remote", "", "let /admin/reload answer clients on other machines too"},
         {"drain-delay", "SECONDS",
          "on SIGTERM/SIGINT, /health answers 503 and requests are still served this long "
          "before the listener closes (default 5)"},
         {"grace", "SECONDS",
          "after the listener closed, time left to requests in flight (default 10)"},
         {"allow-root", "DIR", "let the prompts' ${file:} references read below DIR too", true},
         {"allow-env", "NAME", "let the prompts' ${env:NAME} read that variable", true},
         {"trace", "FILE.jsonl",
          "append one trace record per request (with its x-cmfpipe-request-id)"}});
    return options;
}

const CommandRegistration serve_registration{
    {"serve",
     "serve prompts, the pipeline and parse-output over HTTP until SIGTERM/SIGINT (SIGHUP reloads "
     "the pipeline and prompts)",
     "serve [--listen HOST:PORT] [--prompts DIR] [--config PIPELINE.yaml | --no-pipeline] "
     "[--upstream NAME=URL]... [--max-body BYTES] [--threads N]",
     serve_options(), 0, run_serve}};

}  // namespace
}  // namespace cmfpipe::cli
