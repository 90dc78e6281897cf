// The routes of serve/router.hpp.
#include "router.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/version.hpp>

#include "cmfpipe/cmf/json.hpp"
#include "cmfpipe/core/pipeline/messages_file.hpp"
#include "cmfpipe/errors.hpp"
#include "cmfpipe/json_parse.hpp"
#include "provider_routes.hpp"

namespace cmfpipe::serve {
namespace {

constexpr std::string_view prompts_prefix = "/v1/prompts/";

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::string percent_decode(std::string_view text, bool plus_is_space) {
    // Most targets escape nothing: copied whole, not a character at a time (looked for with
    // memchr: find_first_of compares each character with the set in a call, ~600 instructions
    // for a 20-character path).
    if (text.find('%') == std::string_view::npos &&
        (!plus_is_space || text.find('+') == std::string_view::npos))
        return std::string(text);
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '+' && plus_is_space) {
            out += ' ';
        } else if (c == '%') {
            const int high = i + 2 < text.size() ? hex_digit(text[i + 1]) : -1;
            const int low = i + 2 < text.size() ? hex_digit(text[i + 2]) : -1;
            if (high < 0 || low < 0) {
                throw ValueError("malformed percent escape in the request target at column " +
                                 std::to_string(i + 1));
            }
            out += static_cast<char>(high * 16 + low);
            i += 2;
        } else {
            out += c;
        }
    }
    return out;
}

// The request body as JSON, through the limits policy; an empty body is `empty`.
Json body_json(const Request& request, Json empty) {
    if (request.body().empty()) return empty;
    return parse_json(request.body(), std::string(body_source));
}

bool is_method(const Request& request, http::verb verb) {
    return request.method() == verb;
}

// Routes whose work cmfpipe runs itself (not a proxy's): their place in Router::local_costs_.
std::size_t local_route_index(Metrics::Route route) {
    switch (route) {
        case Metrics::Route::prompts:
            return 0;
        case Metrics::Route::process:
            return 1;
        default:
            return 2;  // parse_output
    }
}

Response method_not_allowed(std::string_view allowed) {
    Response answer =
        error_answer(http::status::method_not_allowed, "UsageError", "method_not_allowed",
                     "this route answers " + std::string(allowed) + " only");
    answer.set(http::field::allow, beast_view(allowed));
    return answer;
}

Response stopped_answer(const std::vector<pipeline::Decision>& decisions, Json body) {
    body["error"] = {{"message", pipeline::stop_message(decisions, "request")},
                     {"type", "Stopped"},
                     {"code", "stopped"}};
    return json_answer(http::status::forbidden, body);
}

Json decisions_json(const std::vector<pipeline::Decision>& decisions) {
    Json list = Json::array();
    for (const auto& d : decisions) list.push_back(pipeline::to_json(d));
    return list;
}

// Runs `work` on this thread now, up to its first wait, then hands what it threw (if anything)
// to `done` once it is over. The caller is on the executor `work` is to run on (a session's
// handler).
template <class Done>
boost::asio::awaitable<void> run_then(boost::asio::awaitable<void> work, Done done) {
    std::exception_ptr error;
    try {
        co_await std::move(work);
    } catch (...) {
        error = std::current_exception();
    }
    done(error);
}

// The log line of a proxied answer whose delivery to its session threw.
std::string delivery_failure_line(std::exception_ptr error) {
    std::string what = "unknown exception";
    try {
        std::rethrow_exception(error);
    } catch (const std::exception& e) {
        what = e.what();
    } catch (...) {
    }
    return Json({{"error", "InternalError"}, {"message", "an answer's delivery failed: " + what}})
        .dump();
}

template <class Done>
void spawn_now(const boost::asio::any_io_executor& executor, boost::asio::awaitable<void> work,
               Done done) {
#if BOOST_VERSION == 107400
    // co_spawn begins with a post: one more pass through the scheduler (an epoll_wait) for every
    // proxied request. This launches the coroutine as co_spawn's initiation does, without it.
    boost::asio::detail::awaitable_handler<boost::asio::any_io_executor, void>(
        run_then(std::move(work), std::move(done)), executor)
        .launch();
#else
    boost::asio::co_spawn(executor, std::move(work), std::move(done));
#endif
}

}  // namespace

void LogSink::line(std::string_view text) {
    std::lock_guard lock(mutex_);
    out_ << text << '\n';
    out_.flush();
}

const std::string* Target::param(std::string_view name) const {
    for (const auto& [key, value] : query)
        if (key == name) return &value;
    return nullptr;
}

Target parse_target(std::string_view target) {
    Target out;
    const std::size_t question = target.find('?');
    out.path = percent_decode(target.substr(0, question), false);
    if (question == std::string_view::npos) return out;
    std::string_view rest = target.substr(question + 1);
    while (!rest.empty()) {
        const std::size_t amp = rest.find('&');
        const std::string_view pair = rest.substr(0, amp);
        if (!pair.empty()) {
            const std::size_t eq = pair.find('=');
            out.query.emplace_back(percent_decode(pair.substr(0, eq), true),
                                   eq == std::string_view::npos
                                       ? std::string()
                                       : percent_decode(pair.substr(eq + 1), true));
        }
        if (amp == std::string_view::npos) break;
        rest.remove_prefix(amp + 1);
    }
    return out;
}

Router::Router(std::shared_ptr<host::Host> host, Served served, Metrics& metrics, LogSink& log,
               std::shared_ptr<const tracing::Tracer> tracer,
               std::map<std::string, std::unique_ptr<Upstream>> upstreams,
               StreamGuardOptions stream_options, AdminRoute admin)
    : host_(std::move(host)),
      metrics_(metrics),
      log_(log),
      tracer_(std::move(tracer)),
      admin_(std::move(admin)),
      proxy_(std::make_unique<Proxy>(
          host_, std::move(upstreams), metrics_,
          [this](const std::vector<pipeline::Decision>& decisions, std::string_view route,
                 const std::string& request_id) { record(decisions, route, request_id); },
          stream_options)) {
    replace(std::move(served));
}

Router::~Router() = default;

std::uint64_t Router::replace(Served served) {
    std::lock_guard lock(replace_mutex_);
    auto loaded = std::make_shared<Loaded>();
    loaded->plugins = registry_listing(served.service->registry()).dump(2) + "\n";
    loaded->served = std::move(served);
    const auto previous = loaded_.load();
    loaded->generation = previous ? previous->generation + 1 : 1;
    const std::uint64_t generation = loaded->generation;
    loaded_.store(std::move(loaded));
    return generation;
}

void Router::work_started() {
    on_pool_.fetch_add(1, std::memory_order_relaxed);
}

void Router::work_finished() {
    // The lock only for the last one: a waiter that saw work left is inside wait() before this
    // takes it, so the notification reaches it.
    if (on_pool_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
    std::lock_guard lock(idle_mutex_);
    idle_.notify_all();
}

Metrics::Route Router::route_of(std::string_view path) {
    using Route = Metrics::Route;
    if (path == "/health") return Route::health;
    if (path == "/ready") return Route::ready;
    if (path == "/admin/reload") return Route::admin_reload;
    if (path == "/metrics") return Route::metrics;
    if (path == "/v1/plugins") return Route::plugins;
    if (path.starts_with(prompts_prefix)) return Route::prompts;
    if (path == "/v1/process") return Route::process;
    if (path == "/v1/parse-output") return Route::parse_output;
    if (path == "/v1/chat/completions") return Route::chat_completions;
    if (path == "/v1/messages") return Route::messages;
    if (path == "/v1/responses") return Route::responses;
    if (is_models_path(path)) return Route::models;
    if (path == "/v1/embeddings") return Route::embeddings;
    if (path == "/v1/messages/count_tokens") return Route::count_tokens;
    return Route::other;
}

bool Router::proxied(Metrics::Route route) {
    using Route = Metrics::Route;
    return route == Route::chat_completions || route == Route::messages ||
           route == Route::responses || route == Route::models || route == Route::embeddings ||
           route == Route::count_tokens;
}

void Router::handle(Request&& request, const std::string& request_id, bool unready,
                    bool loopback_peer, const host::AnswerBound& answer_bound,
                    const boost::asio::any_io_executor& executor,
                    std::shared_ptr<ClientStream> client,
                    std::shared_ptr<Cancellation> cancellation, Done done) {
    using Route = Metrics::Route;
    Target target;
    try {
        target = parse_target(std_view(request.target()));
    } catch (...) {
        return done(error_answer(std::current_exception()));
    }
    const Route route = route_of(target.path);
    // What is served now; the request keeps it to its end, whatever a reload does meanwhile.
    std::shared_ptr<const Loaded> loaded = loaded_.load();
    // Cheap answers are made here, on the I/O thread.
    switch (route) {
        case Route::health:
            if (!is_method(request, http::verb::get)) return done(method_not_allowed("GET"));
            if (unready) {
                return done(
                    json_answer(http::status::service_unavailable, {{"status", "draining"}}));
            }
            return done(json_answer(http::status::ok, {{"status", "ok"}}));
        case Route::ready:
            // The prompts and the pipeline are loaded before the server listens: ready from the
            // first request it can read until a stop is asked for.
            if (!is_method(request, http::verb::get)) return done(method_not_allowed("GET"));
            if (unready) {
                return done(
                    json_answer(http::status::service_unavailable, {{"status", "draining"}}));
            }
            return done(json_answer(http::status::ok, {{"status", "ready"}}));
        case Route::metrics:
            if (!is_method(request, http::verb::get)) return done(method_not_allowed("GET"));
            return done(text_answer(http::status::ok, metrics_.text(),
                                    "text/plain; version=0.0.4; charset=utf-8"));
        case Route::plugins:
            if (!is_method(request, http::verb::get)) return done(method_not_allowed("GET"));
            return done(text_answer(http::status::ok, loaded->plugins, "application/json"));
        case Route::admin_reload:
            return admin_reload(request, loopback_peer, std::move(done));
        case Route::other:
            return done(error_answer(http::status::not_found, "NotFound", "unknown_route",
                                     "no route " + target.path));
        case Route::chat_completions:
        case Route::messages:
        case Route::responses:
        case Route::models:
        case Route::embeddings:
        case Route::count_tokens: {
            const Proxy::Provider* provider = proxy_->provider_for(route, request);
            if (provider == nullptr) {
                return done(error_answer(http::status::not_found, "NotFound", "no_upstream",
                                         "no upstream is configured for " + target.path + " (" +
                                             Proxy::missing_upstream_hint(route) + ")"));
            }
            if (!is_method(request, provider->method)) {
                return done(method_not_allowed(std_view(http::to_string(provider->method))));
            }
            std::string path = upstream_path(*provider, target.path, std_view(request.target()));
            work_started();
            // Without a tracer nothing of the span is made (its JSON costs ~2k instructions, and
            // even an empty span's moves into the completion below ~300).
            std::unique_ptr<tracing::Span> span;
            if (tracer_) {
                span = std::make_unique<tracing::Span>(tracer_->start("proxy"));
                span->emit("request_id", request_id);
                span->emit("inputs", {{"route", target.path}});
            }
            // The answer (a failure the provider's way) is delivered from inside the proxy's
            // coroutine, before the request's objects are destroyed; the work is over once the
            // coroutine is.
            Proxy::Deliver deliver = [span = std::move(span), done = std::move(done)](
                                         std::optional<Response>&& answer) mutable {
                if (span && span->active()) {
                    span->emit("result", answer ? Json{{"status", answer->result_int()}}
                                                : Json{{"status", 200}, {"streamed", true}});
                    span->end();
                }
                done(std::move(answer));
            };
            spawn_now(executor,
                      proxy_->answer(*provider, loaded->served.service, std::move(request),
                                     std::move(path), request_id, std::move(client),
                                     std::move(cancellation), std::move(deliver)),
                      [this](std::exception_ptr error) {
                          // Only a delivery that failed gets here (the proxy answers every
                          // failure of its own): it is logged, the connection left to its
                          // deadlines.
                          if (error) log_.line(delivery_failure_line(error));
                          work_finished();
                      });
            return;
        }
        default:
            break;
    }
    if (!is_method(request, http::verb::post)) return done(method_not_allowed("POST"));
    const std::size_t request_body_bytes = request.body().size();
    // The rest is run here: on the I/O thread when the body is small and the route's runs have
    // been cheap (the pool's hop would cost as much as the run), on the pool otherwise. The
    // request and the target move there with the work.
    MeasuredCost& cost = local_costs_[local_route_index(route)];
    // What the work reads, in one allocation: the work is moved several times on its way to the
    // pool, and a request, a target and strings moved each time cost ~1.5k instructions.
    struct Inputs {
        std::shared_ptr<const Loaded> loaded;
        Request request;
        Target target;
        std::string request_id;
        host::AnswerBound answer_bound;
    };
    auto work =
        [this, route, cost = &cost,
         in = std::make_unique<Inputs>(Inputs{std::move(loaded), std::move(request),
                                              std::move(target), request_id, answer_bound})] {
            const MeasuredCost::Timer timer(*cost);
            switch (route) {
                case Route::prompts:
                    return run_prompt(*in->loaded, in->request, in->target, in->request_id,
                                      in->answer_bound);
                case Route::process:
                    return process(*in->loaded->served.service, in->request, in->target,
                                   in->request_id);
                default:
                    return parse_output(*in->loaded->served.service, in->request, in->target);
            }
        };
    if (request_body_bytes <= inline_work_bytes && cost.cheap()) {
        Response answer;
        try {
            answer = work();
        } catch (...) {
            answer = error_answer(std::current_exception());
        }
        return done(std::move(answer));
    }
    work_started();
    host_->async_call(std::move(work),
                      [this, done = std::move(done)](std::exception_ptr error, Response answer) {
                          done(error ? error_answer(error) : std::move(answer));
                          work_finished();
                      });
}

bool Router::idle() const {
    return on_pool_.load(std::memory_order_acquire) == 0;
}

bool Router::wait_idle_for(std::chrono::milliseconds time) const {
    std::unique_lock lock(idle_mutex_);
    return idle_.wait_for(lock, time, [this] { return on_pool_.load() == 0; });
}

void Router::wait_idle() const {
    std::unique_lock lock(idle_mutex_);
    idle_.wait(lock, [this] { return on_pool_.load() == 0; });
}

Response Router::run_prompt(const Loaded& loaded, const Request& request, const Target& target,
                            const std::string& request_id, const host::AnswerBound& bound) const {
    const std::string name = target.path.substr(prompts_prefix.size());
    const auto& prompts = loaded.served.prompts;
    if (!prompts) throw host::NotFound("no prompt named '" + name + "' (no --prompts folder)");
    std::shared_ptr<const host::Prompt> prompt;
    try {
        prompt = prompts->get(name);
    } catch (const host::NotFound&) {
        throw;
    } catch (const Error& e) {
        // The served file no longer loads: the server's problem, not the client's.
        log_.line(
            Json({{"request_id", request_id}, {"error", e.kind()}, {"message", e.what()}}).dump());
        return error_answer(http::status::internal_server_error, e.kind(), "prompt_unavailable",
                            e.what());
    }
    const Json inputs = body_json(request, Json::object());
    if (!inputs.is_object()) {
        throw ValueError("the inputs must be a JSON object, got " + std::string(inputs.type_name()),
                         {std::string(body_source)});
    }
    const std::string* to = target.param("to");

    tracing::Span span;
    if (tracer_) {
        span = tracer_->start("serve");
        span.emit("request_id", request_id);
        span.emit("inputs", {{"prompt", name}, {"to", to ? *to : "cmf"}});
    }
    host::AnswerText outcome;
    try {
        outcome = loaded.served.service->run_within(
            *prompt, inputs, to ? *to : "cmf", tracing::TraceContext{tracer_.get(), &span}, bound);
    } catch (const host::AnswerTooLarge& e) {
        span.emit_error(e.kind(), e.what());
        return error_answer(http::status::payload_too_large, e.kind(), "answer_too_large",
                            e.what());
    } catch (const Error& e) {
        span.emit_error(e.kind(), e.what());
        throw;
    }
    record(outcome.decisions, Metrics::route_label(Metrics::Route::prompts), request_id);
    if (outcome.stopped) {
        if (span.active()) span.emit("result", {{"stopped", true}});
        return stopped_answer(outcome.decisions,
                              {{"decisions", decisions_json(outcome.decisions)}});
    }
    if (!outcome.is_json) {
        // A model prompt (chatml, harmony): the exact text, as `cmfpipe run` prints it.
        if (span.active()) span.emit("result", outcome.body);
        return text_answer(http::status::ok, std::move(outcome.body), "text/plain; charset=utf-8");
    }
    if (span.active()) span.emit("result", parse_json(outcome.body, "answer"));
    return text_answer(http::status::ok, std::move(outcome.body), "application/json");
}

Response Router::process(const host::Service& service, const Request& request, const Target& target,
                         const std::string& request_id) const {
    const std::string* hook = target.param("hook");
    const Json document = body_json(request, Json());
    if (document.is_null()) {
        throw ValueError("the body must be a messages document {\"messages\": [...]}",
                         {std::string(body_source)});
    }
    pipeline::PipelineResult result =
        service.process(hook ? *hook : "llm_input",
                        pipeline::messages_from_document(document, std::string(body_source)));
    record(result.decisions, Metrics::route_label(Metrics::Route::process), request_id);
    if (result.stopped) return stopped_answer(result.decisions, pipeline::to_json(result));
    return json_answer(http::status::ok, pipeline::to_json(result));
}

Response Router::parse_output(const host::Service& service, const Request& request,
                              const Target& target) {
    const std::string* kind = target.param("from");
    if (kind == nullptr) {
        throw ValueError("parse-output wants ?from=KIND (openai, anthropic, chatml, harmony, ...)");
    }
    // Every other parameter is an adapter option, as `--option KEY=JSON`: JSON, or else a string.
    Json options = {{"source", std::string(body_source)}};
    for (const auto& [key, value] : target.query) {
        if (key == "from") continue;
        JsonParse parsed = try_parse_json(value);
        if (parsed.too_deep) throw LimitExceeded(parsed.error, {"query parameter " + key});
        options[key] = parsed.value ? std::move(*parsed.value) : Json(value);
    }
    return json_answer(http::status::ok,
                       cmf::messages_to_json(service.parse_output(*kind, request.body(), options)));
}

void Router::record(const std::vector<pipeline::Decision>& decisions, std::string_view route,
                    const std::string& request_id) const {
    for (const auto& d : decisions) {
        metrics_.decision(d.processor, pipeline::to_string(d.outcome),
                          pipeline::to_string(d.effect));
        Json line = {{"request_id", request_id}, {"route", route}};
        line.update(pipeline::to_json(d));
        log_.line(line.dump());
    }
}

void Router::admin_reload(const Request& request, bool loopback_peer, Done done) {
    if (admin_.token.empty()) {
        return done(error_answer(http::status::not_found, "NotFound", "unknown_route",
                                 "no route /admin/reload (serve --admin-token turns it on)"));
    }
    if (!is_method(request, http::verb::post)) return done(method_not_allowed("POST"));
    if (!loopback_peer && !admin_.remote) {
        return done(error_answer(http::status::forbidden, "PermissionError", "admin_not_local",
                                 "/admin/reload answers clients on this machine only "
                                 "(serve --admin-remote lifts that)"));
    }
    const auto given = request[http::field::authorization];
    if (given != "Bearer " + admin_.token) {
        return done(error_answer(http::status::unauthorized, "PermissionError", "admin_token",
                                 "/admin/reload wants Authorization: Bearer <the --admin-token>"));
    }
    // Loading the files and plugins is slow work: on the pool, as a request's is.
    work_started();
    host_->async_call(
        [this] { return admin_.reload(); },
        [this, done = std::move(done)](std::exception_ptr error, Server::ReloadOutcome outcome) {
            if (error) {
                done(error_answer(error));
            } else if (outcome.reloaded) {
                done(json_answer(http::status::ok,
                                 {{"status", "reloaded"}, {"generation", outcome.generation}}));
            } else {
                done(error_answer(http::status::unprocessable_entity, "ConfigError",
                                  "reload_refused",
                                  outcome.error + " (still serving generation " +
                                      std::to_string(outcome.generation) + ")"));
            }
            work_finished();
        });
}

}  // namespace cmfpipe::serve
