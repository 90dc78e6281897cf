#pragma once
// What a route that answers as it goes (a streamed proxy answer) writes its client through, and
// how it learns that the client has gone. Both belong to one connection and are used on its
// strand only.
// Boost 1.74's awaitable.hpp uses std::exchange without including <utility>.
#include <utility>

#include <boost/asio/awaitable.hpp>
#include <functional>
#include <string_view>

#include "http_answer.hpp"

namespace cmfpipe::serve {

class ClientStream {
  public:
    virtual ~ClientStream() = default;
    // The answer's header (status, Content-Type, and `provider_headers`: the upstream's fields
    // that reach the client, forwarded_headers.hpp; the server's own fields are added,
    // Cache-Control "no-cache" when the provider sent none), sent with chunked transfer encoding.
    // Each call throws boost::system::system_error once the client is gone or too slow to read
    // (--client-timeout).
    virtual boost::asio::awaitable<void> begin(http::status status, std::string_view content_type,
                                               const http::fields& provider_headers) = 0;
    // One piece of the body, sent at once.
    virtual boost::asio::awaitable<void> write(std::string_view data) = 0;
    // The end of the body.
    virtual boost::asio::awaitable<void> end() = 0;
};

// Set when the client closes its connection before its answer is complete. Whoever holds a
// resource for the request (the upstream call) registers what to do then.
class Cancellation {
  public:
    // Replaces the action; runs it at once when the request is cancelled already.
    void on_cancel(std::function<void()> action) {
        action_ = std::move(action);
        if (cancelled_ && action_) action_();
    }
    void cancel() {
        if (cancelled_) return;
        cancelled_ = true;
        if (action_) action_();
    }
    bool cancelled() const { return cancelled_; }

  private:
    std::function<void()> action_;
    bool cancelled_ = false;
};

}  // namespace cmfpipe::serve
