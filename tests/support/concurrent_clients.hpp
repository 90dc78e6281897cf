#pragma once
// Many clients of one server at once: `connections` connections, each on a thread of its own,
// together sending `total` requests, each connection taking the next request number in turn.
// Whether each answer was the request's own is the test's to say.
#include <atomic>
#include <thread>
#include <vector>

#include "support/http_client.hpp"

namespace cmfpipe::testing {

struct OwnAnswers {
    int right = 0;  // answers that were their request's own
    int wrong = 0;  // any other (another's answer, an error)
};

// `ask(client, n)` sends request number n over `client` and says whether its answer was its own.
template <class Ask>
OwnAnswers ask_concurrently(unsigned short port, int connections, int total, Ask ask) {
    std::atomic<int> next{0}, right{0}, wrong{0};
    std::vector<std::thread> threads;
    for (int c = 0; c < connections; ++c) {
        threads.emplace_back([&] {
            HttpConnection client(port);
            for (int n; (n = next++) < total;) (ask(client, n) ? right : wrong)++;
        });
    }
    for (auto& t : threads) t.join();
    return {right.load(), wrong.load()};
}

}  // namespace cmfpipe::testing
