#pragma once
// tests/serve/mock_upstream.py, started on 127.0.0.1 for the test that holds it (stopped with
// it), and what it received: the stand-in for OpenAI and Anthropic behind `cmfpipe serve`.
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "cmfpipe/json_parse.hpp"
#include "support/scratch.hpp"
#include "support/serve_process.hpp"

namespace cmfpipe::testing {

struct MockUpstream {
    Scratch scratch;
    std::string record = (scratch.dir / "received.jsonl").string();
    std::unique_ptr<ListeningProcess> process;

    // `extra`: its options (--tls CERT KEY).
    explicit MockUpstream(std::vector<std::string> extra = {}) {
        std::vector<std::string> words = {
            "python3",
            (std::filesystem::path(CMFPIPE_SOURCE_DIR) / "tests/serve/mock_upstream.py").string(),
            record};
        words.insert(words.end(), extra.begin(), extra.end());
        process = std::make_unique<ListeningProcess>(words, "listening on ([0-9]+)");
    }
    std::string url(const std::string& scheme = "http") const {
        return scheme + "://127.0.0.1:" + std::to_string(process->port()) + "/v1";
    }
    // Every record line, in order: the requests received, and what it noticed (a client gone).
    std::vector<Json> received() const {
        std::vector<Json> out;
        std::ifstream in(record);
        for (std::string line; std::getline(in, line);) out.push_back(parse_json(line, "record"));
        return out;
    }
};

}  // namespace cmfpipe::testing
