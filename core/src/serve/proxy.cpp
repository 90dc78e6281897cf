// serve/proxy.hpp: the OpenAI- and Anthropic-compatible routes, guarded on the way in and out.
#include "proxy.hpp"

#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/string.hpp>
#include <chrono>

#include "cmfpipe/body_text_reader.hpp"
#include "cmfpipe/json_parse.hpp"
#include "cmfpipe/wire/request_fields.hpp"
#include "forwarded_headers.hpp"
#include "json_keys.hpp"
#include "provider_routes.hpp"
#include "request_framing.hpp"

namespace cmfpipe::serve {
namespace {

namespace net = boost::asio;

// Whether the processors changed the conversation: the pipeline changes a message only by a
// decision applied (pipeline.hpp: a message that goes on unchanged leaves no decision, a
// discarded or rejected copy is not used), so without one the messages are the ones given.
bool changed_any(const std::vector<pipeline::Decision>& decisions) {
    for (const pipeline::Decision& d : decisions)
        if (d.effect == pipeline::Effect::applied) return true;
    return false;
}

}  // namespace

Response Proxy::Provider::error(http::status status, std::string_view type, std::string_view code,
                                std::string_view message) const {
    if (adapter != "anthropic") return error_answer(status, type, code, message);
    return json_answer(
        status, {{"type", "error"},
                 {"error", {{"type", std::string(code)}, {"message", std::string(message)}}}});
}

namespace {

// An answer's tool-call arguments that are not an object are shown to the llm_output processors
// (as a request's are to llm_input), so that what the client gets of them has passed them.
const Proxy::Provider* provider_of(Metrics::Route route) {
    static const std::string shown(wire::shown_arguments_option);
    static const Proxy::Provider openai{Metrics::Route::chat_completions, "openai", "openai",
                                        "/chat/completions",
                                        Json{{"apiType", "chat"}, {shown, true}}};
    static const Proxy::Provider responses{Metrics::Route::responses, "openai", "openai",
                                           "/responses",
                                           Json{{"apiType", "responses"}, {shown, true}}};
    static const Proxy::Provider anthropic{Metrics::Route::messages, "anthropic", "anthropic",
                                           "/messages", Json{{shown, true}}};
    if (route == openai.route) return &openai;
    if (route == responses.route) return &responses;
    if (route == anthropic.route) return &anthropic;
    return pass_through_provider(route);
}

}  // namespace

Proxy::Proxy(std::shared_ptr<host::Host> host,
             std::map<std::string, std::unique_ptr<Upstream>> upstreams, Metrics& metrics,
             Record record, StreamGuardOptions stream_options)
    : host_(std::move(host)),
      upstreams_(std::move(upstreams)),
      metrics_(metrics),
      record_(std::move(record)),
      stream_options_(stream_options) {}

Proxy::~Proxy() = default;

Response Proxy::failure_answer(const Provider& provider, std::exception_ptr error) {
    Response answer = error_answer(error);
    if (provider.adapter != "anthropic") return answer;
    const Json body = parse_json(answer.body(), "answer");
    return provider.error(answer.result(), body["error"]["type"].get<std::string>(),
                          body["error"]["code"].get<std::string>(),
                          body["error"]["message"].get<std::string>());
}

const Proxy::Provider* Proxy::provider_for(Metrics::Route route, const Request& request) const {
    const Provider* provider = provider_of(route);
    if (route == Metrics::Route::models) {
        const bool openai = upstreams_.count("openai") > 0;
        const bool anthropic = upstreams_.count("anthropic") > 0;
        // Anthropic's SDKs send anthropic-version with every call; OpenAI's never do.
        const bool asks_anthropic = request.find("anthropic-version") != request.end();
        provider =
            &models_provider(anthropic && (asks_anthropic || !openai) ? "anthropic" : "openai");
    }
    if (provider == nullptr || upstreams_.count(provider->upstream) == 0) return nullptr;
    return provider;
}

std::string Proxy::missing_upstream_hint(Metrics::Route route) {
    if (route == Metrics::Route::models) return "--upstream openai=URL or --upstream anthropic=URL";
    const Provider* provider = provider_of(route);
    return provider ? "--upstream " + provider->upstream + "=URL" : "";
}

Proxy::Prepared Proxy::prepare(const Provider& provider,
                               const std::shared_ptr<const host::Service>& shared_service,
                               std::string& text, const std::string& request_id) const {
    if (provider.input == Provider::Input::none) {
        Prepared none;  // a GET: no body to read
        none.service = shared_service;
        return none;
    }
    const host::Service& service = *shared_service;
    const bool embeddings = provider.input == Provider::Input::embedding_inputs;
    // The adapter reads the common body straight from its text when it can (no tree; it vouches
    // that the text may go on as it came, body_text_reader.hpp); else the body is parsed, noting
    // its keys for the pass-through below in the same pass. The body's own errors (400) come
    // before the adapter's, as without the fast read.
    std::shared_ptr<const Adapter> adapter;
    std::optional<std::vector<cmf::Message>> read_from_text;
    if (!embeddings) {
        try {
            adapter = service.adapter(provider.adapter);
        } catch (const Error&) {
            // asked again below, once the body is known to be readable
        }
        if (const auto* reader = dynamic_cast<const BodyTextReader*>(adapter.get()))
            read_from_text = reader->request_text_messages(text, provider.adapter_options);
    }
    JsonKeyFacts keys;
    std::optional<Json> body;
    if (!read_from_text) {
        body = parse_json_noting_keys(text, std::string(body_source), keys);
        if (!body->is_object()) {
            throw ValueError(
                "the request body must be a JSON object, got " + std::string(body->type_name()),
                {std::string(body_source)});
        }
        if (!adapter) adapter = service.adapter(provider.adapter);
    }
    EmbeddingTexts texts;
    if (embeddings) texts = embedding_texts(*body);
    pipeline::PipelineResult result = service.process(
        "llm_input", embeddings       ? texts.messages
                     : read_from_text ? std::move(*read_from_text)
                                      : adapter->request_messages(*body, provider.adapter_options));
    record_(result.decisions, Metrics::route_label(provider.route), request_id);
    if (result.stopped) {
        return {{},
                provider.error(http::status::forbidden, "Stopped", "stopped",
                               pipeline::stop_message(result.decisions, "request")),
                nullptr,
                nullptr,
                nullptr,
                shared_service,
                std::nullopt,
                std::nullopt};
    }
    // Nothing changed: the client's bytes go up as they came (what the parser read is what the
    // upstream reads: no duplicate keys). Otherwise the body made from what the processors left.
    const bool as_sent = !changed_any(result.decisions) && (!body || keys_plain_and_distinct(keys));
    std::optional<Json> rewritten;
    if (!as_sent) {
        // Read from its text, the body parses (the adapter vouched for it): its tree now.
        if (!body) body = parse_json(text, std::string(body_source));
        rewritten = embeddings ? with_embedding_texts(*body, texts, result.messages)
                               : adapter->with_request_messages(*body, result.messages,
                                                                provider.adapter_options);
    }
    // A body read from its text is not streamed (body_text_reader.hpp): no tree for a guard.
    const Json* processed = rewritten ? &*rewritten : body ? &*body : nullptr;
    Prepared prepared{rewritten ? rewritten->dump() : std::move(text),
                      std::nullopt,
                      adapter,
                      nullptr,
                      nullptr,
                      shared_service,
                      std::nullopt,
                      std::nullopt};
    if (provider.guards_answer && processed && processed->value("stream", false) == true) {
        // The guard runs the llm_output processors on every step of the stream; the last run's
        // decisions go to the log once the stream is over (proxy_stream.cpp).
        prepared.decisions = std::make_shared<StreamDecisions>();
        // Text the processors will no longer change goes out at once (the holdback the bound).
        StreamGuardOptions options = stream_options_;
        options.final_length = [shared_service](std::string_view text) {
            return shared_service->final_length("llm_output", text);
        };
        options.processors = shared_service->has_pipeline();
        prepared.guarded = adapter->guard_stream(
            *processed,
            [shared_service, decisions = prepared.decisions](std::vector<cmf::Message> messages) {
                return guard(*shared_service, std::move(messages), *decisions);
            },
            options, provider.adapter_options);
    }
    prepared.spent_request.emplace(std::move(result));
    return prepared;
}

GuardVerdict Proxy::guard(const host::Service& service, std::vector<cmf::Message> messages,
                          StreamDecisions& decisions) {
    pipeline::PipelineResult result = service.process("llm_output", std::move(messages));
    decisions.last = result.decisions;
    GuardVerdict verdict;
    verdict.messages = std::move(result.messages);
    verdict.stopped = result.stopped;
    verdict.changed = changed_any(result.decisions);
    if (result.stopped) verdict.reason = pipeline::stop_message(result.decisions, "answer");
    return verdict;
}

UpstreamFailure unreadable_answer(const Proxy::Provider& provider, std::string_view what) {
    return UpstreamFailure(502, "broken",
                           "upstream '" + provider.upstream + "' answered what the " +
                               provider.adapter + " adapter cannot read: " + std::string(what));
}

Response Proxy::finish(const Provider& provider, const host::Service& service,
                       Response& upstream_answer, const std::string& request_id,
                       std::optional<pipeline::PipelineResult>* spent) const {
    std::string& text = upstream_answer.body();
    // Only an object is read: the adapter would take other text for a stream or a model's own
    // words. The adapter parses it (once); the reason a text is not an object is asked for only
    // when it is not.
    // (A byte order mark, which the parser skips, is skipped here too.)
    const std::size_t bom = std::string_view(text).starts_with("\xEF\xBB\xBF") ? 3 : 0;
    if (const auto first = text.find_first_not_of(" \t\r\n", bom);
        first == std::string::npos || text[first] != '{') {
        const JsonParse parsed = try_parse_json(text);
        throw UpstreamFailure(
            502, "broken",
            "upstream '" + provider.upstream + "' answered what is not a JSON object: " +
                (parsed.value ? "a JSON " + std::string(parsed.value->type_name()) : parsed.error));
    }
    const auto adapter = service.adapter(provider.adapter);
    // The common answer read straight from its text, vouched to go back as it came
    // (body_text_reader.hpp); else from_wire, and the text's keys checked below.
    std::optional<std::vector<cmf::Message>> read_from_text;
    if (const auto* reader = dynamic_cast<const BodyTextReader*>(adapter.get()))
        read_from_text = reader->answer_text_messages(text, provider.adapter_options);
    std::vector<cmf::Message> messages;
    try {
        messages = read_from_text ? std::move(*read_from_text)
                                  : adapter->from_wire(text, provider.adapter_options);
    } catch (const ValueError& e) {
        throw unreadable_answer(provider, e.message());
    } catch (const LimitExceeded& e) {
        throw unreadable_answer(provider, e.message());
    }
    const bool plain_keys = read_from_text.has_value();
    pipeline::PipelineResult result = service.process("llm_output", std::move(messages));
    record_(result.decisions, Metrics::route_label(provider.route), request_id);
    if (result.stopped) {
        return provider.error(http::status::forbidden, "Stopped", "stopped",
                              pipeline::stop_message(result.decisions, "answer"));
    }
    Response answer{http::status::ok, 11};
    answer.set(http::field::content_type, "application/json");
    // Nothing changed: the upstream's bytes go back as they came (see prepare).
    if (!changed_any(result.decisions) && (plain_keys || keys_plain_and_distinct(text))) {
        answer.body() = std::move(text);
    } else {
        const Json parsed = parse_json(text, "upstream answer");  // from_wire read it: it parses
        answer.body() =
            adapter->with_response_messages(parsed, result.messages, provider.adapter_options)
                .dump(-1, ' ', false, Json::error_handler_t::replace);
    }
    if (spent) spent->emplace(std::move(result));
    return answer;
}

// `provider` is one of the static ones of provider_of and models_provider: it outlives the call.
net::awaitable<void> Proxy::answer(const Provider& provider,
                                   std::shared_ptr<const host::Service> service, Request request,
                                   std::string path, std::string request_id,
                                   std::shared_ptr<ClientStream> client,
                                   std::shared_ptr<Cancellation> cancellation, Deliver deliver) {
    // The answer is delivered from inside the try: what the request made (its body, the
    // upstream's answer, the fields) is destroyed after the client's write, not before it.
    std::exception_ptr failed;
    bool delivered = false;
    try {
        Upstream& upstream = *upstreams_.at(provider.upstream);

        Prepared prepared;
        if (request.body().size() <= inline_work_bytes) {
            prepared = prepare(provider, service, request.body(), request_id);
        } else {
            // The work is a named local, not a temporary inside the co_await: g++ 12 destroys the
            // captures of such a temporary twice.
            auto prepare_work = [this, &provider, service, body = std::move(request.body()),
                                 request_id]() mutable {
                return prepare(provider, service, body, request_id);
            };
            prepared = co_await host_->async_call(std::move(prepare_work), net::use_awaitable);
        }
        if (prepared.refusal) {
            delivered = true;
            deliver(std::move(prepared.refusal));
            co_return;
        }

        Upstream::Headers headers = upstream_request_headers(request, request_id);
        if (provider.method == http::verb::post)
            headers.emplace_back("content-type", "application/json");
        if (prepared.guarded) {
            std::optional<Response> streamed =
                co_await stream(provider, upstream, std::move(path), std::move(prepared),
                                std::move(headers), *client, *cancellation, std::move(request_id));
            delivered = true;
            deliver(std::move(streamed));
            co_return;
        }

        const auto started = std::chrono::steady_clock::now();
        Response upstream_answer;
        try {
            // Read into the answer here: not moved out through the upstream client's coroutines.
            co_await upstream.call_into(upstream_answer, provider.method, path, prepared.body,
                                        headers, cancellation.get());
        } catch (const UpstreamFailure& e) {
            metrics_.upstream_error(upstream.name(), e.reason());
            throw;
        }
        // The upstream's time is taken here, counted once the client's answer is written.
        const auto upstream_time = std::chrono::steady_clock::now() - started;
        std::optional<Response> answer;
        try {
            // Made here when it takes no hop to the pool: no coroutine frame for not_streamed.
            answer = not_streamed_here(provider, *service, upstream, upstream_answer, request_id,
                                       &prepared.spent_answer);
            if (!answer) {
                answer = co_await not_streamed(provider, service, upstream,
                                               std::move(upstream_answer), request_id);
            }
        } catch (const UpstreamFailure& e) {
            // An answer its adapter cannot read (502 upstream_broken): the upstream's failure.
            metrics_.upstream(upstream.name(), upstream_time);
            metrics_.upstream_error(upstream.name(), e.reason());
            throw;
        } catch (...) {
            metrics_.upstream(upstream.name(), upstream_time);
            throw;
        }
        delivered = true;
        deliver(std::move(answer));
        metrics_.upstream(upstream.name(), upstream_time);
        co_return;
    } catch (...) {
        failed = std::current_exception();
    }
    if (delivered) std::rethrow_exception(failed);  // the delivery itself failed
    deliver(failure_answer(provider, failed));
}

std::optional<Response> Proxy::not_streamed_here(
    const Provider& provider, const host::Service& service, Upstream& upstream,
    Response& upstream_answer, const std::string& request_id,
    std::optional<pipeline::PipelineResult>* spent) const {
    const bool refused = upstream_answer.result_int() / 100 != 2;
    if (refused || !provider.guards_answer) {
        // The provider's own refusal (401, 429, 500...) goes back as it came, and so does an
        // answer that is not a conversation (a model list, embeddings, a token count).
        if (refused) {
            metrics_.upstream_error(upstream.name(),
                                    "status_" + std::to_string(upstream_answer.result_int()));
        }
        Response passed{upstream_answer.result(), 11};
        const auto type = upstream_answer[http::field::content_type];
        if (!type.empty()) passed.set(http::field::content_type, type);
        add_provider_headers(provider_answer_headers(upstream_answer), passed);
        passed.body() = std::move(upstream_answer.body());
        return passed;
    }
    if (upstream_answer.body().size() > inline_work_bytes) return std::nullopt;
    // The provider's fields go with the answer made from its body (a stop's 403 included).
    const http::fields provider_headers = provider_answer_headers(upstream_answer);
    Response answer = finish(provider, service, upstream_answer, request_id, spent);
    add_provider_headers(provider_headers, answer);
    return answer;
}

net::awaitable<Response> Proxy::not_streamed(const Provider& provider,
                                             const std::shared_ptr<const host::Service>& service,
                                             Upstream& upstream, Response&& upstream_answer,
                                             const std::string& request_id) {
    if (std::optional<Response> answer =
            not_streamed_here(provider, *service, upstream, upstream_answer, request_id, nullptr))
        co_return std::move(*answer);
    // A large body is read on the pool.
    const http::fields provider_headers = provider_answer_headers(upstream_answer);
    auto finish_work = [this, &provider, service, upstream_answer = std::move(upstream_answer),
                        request_id]() mutable {
        return finish(provider, *service, upstream_answer, request_id);
    };
    Response answer = co_await host_->async_call(std::move(finish_work), net::use_awaitable);
    add_provider_headers(provider_headers, answer);
    co_return answer;
}

}  // namespace cmfpipe::serve
