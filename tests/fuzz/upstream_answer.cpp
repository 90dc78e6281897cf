// Fuzz target: an upstream's answer as `cmfpipe serve`'s upstream client reads it (serve/
// upstream_exchange.hpp, the code the proxy runs): the status line and header, interim (1xx)
// answers, Content-Length, chunked and close-delimited bodies, and for an event stream the
// Server-Sent Events handed to wire::SseReader as they come; then the rule that decides whether
// the connection could be reused (nothing left unread). The bytes arrive over Beast's test stream.
// The first byte: bit 0 whether the body is taken as an event stream, bit 1 whether the sink
// stops after its first event, the rest the size of the pieces the bytes arrive in (1 to 64).
// Boost 1.74's awaitable.hpp uses std::exchange without including <utility>.
#include <utility>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/beast/_experimental/test/stream.hpp>

#include "beast_assertions.hpp"
#include "cmfpipe/limits.hpp"
#include "cmfpipe/wire/sse.hpp"
#include "fuzz_input.hpp"
#include "serve/upstream_exchange.hpp"
#include "serve/upstream_request_head.hpp"

namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
using namespace cmfpipe;
using namespace cmfpipe::serve;

constexpr std::size_t max_answer = 1 << 20;

net::awaitable<void> read_answer(beast::test::stream& stream, bool event_stream, bool stop_early) {
    beast::flat_buffer buffer;
    std::string head;
    append_upstream_request_head(head, http::verb::post, "/v1", "/chat/completions", "upstream", {},
                                 2);
    wire::SseReader reader("upstream 'fuzz' stream", input_limits().max_input_bytes);
    StreamSink sink;
    sink.wants = [&](const http::response_header<>&) { return event_stream; };
    sink.piece = [&](std::string_view bytes) -> net::awaitable<bool> {
        std::vector<wire::SseEvent> events;
        reader.feed(bytes, events);
        sink.events += events.size();
        co_return !(stop_early && sink.events > 0);
    };
    const Deadlines deadlines{Clock::now() + std::chrono::hours(1), std::chrono::hours(1)};
    Exchanged exchanged;
    try {
        Response answer = co_await exchange(
            stream, buffer, head, "{}", max_answer, deadlines, [](Clock::time_point) {}, "fuzz",
            &sink, exchanged);
        // As Upstream::call judges it: bytes past the answer's end refuse it.
        if (exchanged.reusable && buffer.size() > 0)
            throw protocol_failure("fuzz", "bytes came after the answer's end");
        if (event_stream) (void)reader.finish();
        (void)answer;
    } catch (const boost::system::system_error&) {
        // A broken answer: call() turns it into a 502 (or a retry on a stale connection).
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return -1;
    const bool event_stream = (data[0] & 1) != 0;
    const bool stop_early = (data[0] & 2) != 0;
    const std::size_t piece = 1 + (data[0] >> 2);
    return fuzz::run(data + 1, size - 1, fuzz::Admit::model_output, [&](std::string_view input) {
        net::io_context io;
        beast::test::stream client(io);
        beast::test::stream upstream(io);
        client.connect(upstream);
        client.read_size(piece);
        // What the upstream sends is what the client reads, then the upstream's close (EOF).
        client.append(boost::beast::string_view(input.data(), input.size()));
        client.close_remote();
        std::exception_ptr failed;
        net::co_spawn(io, read_answer(client, event_stream, stop_early),
                      [&](std::exception_ptr error) { failed = error; });
        io.run();
        if (failed) std::rethrow_exception(failed);  // only a cmfpipe::Error may escape
    });
}
