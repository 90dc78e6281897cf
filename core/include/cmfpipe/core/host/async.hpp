#pragma once
// The request flow of host/service.hpp as Boost.Asio operations. A Host owns a thread pool: every
// CPU-bound step (render, parse, processors, adapters) runs there, never on the caller's I/O
// threads, and the result goes to the completion handler on the handler's own executor (the
// pool's when it has none). Any completion token works:
//
//   host.async_run(prompt, inputs, "openai", [](std::exception_ptr e, host::Outcome o) {...});
//   std::future<host::Outcome> f = host.async_run(prompt, inputs, "openai", asio::use_future);
//   host::Outcome o = co_await host.async_run(prompt, inputs, "openai", asio::use_awaitable);
//
// The signature is void(std::exception_ptr, Result): a cmfpipe::Error thrown by the flow arrives
// as the exception_ptr (use_future and use_awaitable rethrow it).
#include <boost/asio/async_result.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/execution.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/prefer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <exception>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cmfpipe/core/host/service.hpp"

namespace cmfpipe::host {

class Host {
  public:
    // threads 0: one per core this process may use (its CPU affinity and cgroup CPU quota
    // narrow the machine's cores).
    explicit Host(std::shared_ptr<const Service> service, std::size_t threads = 0);
    // Waits for the work already started, then joins the pool.
    ~Host();
    Host(const Host&) = delete;
    Host& operator=(const Host&) = delete;

    const Service& service() const { return *service_; }
    const std::shared_ptr<const Service>& shared_service() const { return service_; }
    boost::asio::thread_pool::executor_type executor() { return pool_.get_executor(); }
    std::size_t threads() const { return threads_; }

    // fn() on the pool; its result (or what it threw) to the token's handler.
    template <class Fn, class Token>
    auto async_call(Fn fn, Token&& token);

    // Service::run.
    template <class Token>
    auto async_run(std::shared_ptr<const Prompt> prompt, Json inputs, std::string to,
                   Token&& token) {
        return async_call(
            [service = service_, prompt = std::move(prompt), inputs = std::move(inputs),
             to = std::move(to)] { return service->run(*prompt, inputs, to); },
            std::forward<Token>(token));
    }
    // Service::process.
    template <class Token>
    auto async_process(std::string hook, std::vector<cmf::Message> messages, Token&& token) {
        return async_call(
            [service = service_, hook = std::move(hook), messages = std::move(messages)]() mutable {
                return service->process(hook, std::move(messages));
            },
            std::forward<Token>(token));
    }
    // Service::parse_output.
    template <class Token>
    auto async_parse_output(std::string kind, std::string completion, Json options, Token&& token) {
        return async_call(
            [service = service_, kind = std::move(kind), completion = std::move(completion),
             options = std::move(options)] {
                return service->parse_output(kind, completion, options);
            },
            std::forward<Token>(token));
    }
    // Service::complete: the completion back to CMF, then the llm_output processors.
    template <class Token>
    auto async_complete(std::string kind, std::string completion, Json options, Token&& token) {
        return async_call(
            [service = service_, kind = std::move(kind), completion = std::move(completion),
             options = std::move(options)] { return service->complete(kind, completion, options); },
            std::forward<Token>(token));
    }

  private:
    std::shared_ptr<const Service> service_;
    std::size_t threads_;
    boost::asio::thread_pool pool_;
};

template <class Fn, class Token>
auto Host::async_call(Fn fn, Token&& token) {
    using Result = std::decay_t<std::invoke_result_t<Fn&>>;
    return boost::asio::async_initiate<Token, void(std::exception_ptr, Result)>(
        [this](auto handler, Fn work) {
            // The handler's executor is told that work is outstanding, so an io_context does not
            // run out of work while the pool computes.
            auto target = boost::asio::prefer(
                boost::asio::get_associated_executor(handler, pool_.get_executor()),
                boost::asio::execution::outstanding_work.tracked);
            boost::asio::post(pool_, [handler = std::move(handler), work = std::move(work),
                                      target = std::move(target)]() mutable {
                std::exception_ptr error;
                Result result{};
                try {
                    result = work();
                } catch (...) {
                    error = std::current_exception();
                }
                boost::asio::dispatch(target, [handler = std::move(handler), error,
                                               result = std::move(result)]() mutable {
                    std::move(handler)(error, std::move(result));
                });
            });
        },
        token, std::move(fn));
}

}  // namespace cmfpipe::host
