#pragma once
// A small blocking HTTP/1.1 client over a real TCP socket to 127.0.0.1, for tests that speak to a
// server the way any client would, and also the way a hostile one would (raw bytes, slowly,
// never finishing). Reads answers with Content-Length or chunked bodies.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include <catch2/catch.hpp>

#include "cmfpipe/json_parse.hpp"

namespace cmfpipe::testing {

struct HttpAnswer {
    int status = 0;
    std::map<std::string, std::string> headers;  // names in lower case
    std::string body;
    std::string header(const std::string& name) const {
        auto found = headers.find(name);
        return found == headers.end() ? std::string() : found->second;
    }
};

class HttpConnection {
  public:
    explicit HttpConnection(unsigned short port) {
        fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
        if (fd_ < 0) throw std::runtime_error("socket() failed");
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(port);
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
            ::close(fd_);
            fd_ = -1;
            throw std::runtime_error("connect to 127.0.0.1:" + std::to_string(port) + " failed");
        }
        int one = 1;
        ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    ~HttpConnection() {
        if (fd_ >= 0) ::close(fd_);
    }
    HttpConnection(const HttpConnection&) = delete;
    HttpConnection& operator=(const HttpConnection&) = delete;
    HttpConnection(HttpConnection&& other) noexcept : fd_(other.fd_), pending_(other.pending_) {
        other.fd_ = -1;
    }

    // Sends all of `bytes`; false when the peer closed.
    bool send(std::string_view bytes) {
        while (!bytes.empty()) {
            const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
            if (n <= 0) return false;
            bytes.remove_prefix(static_cast<std::size_t>(n));
        }
        return true;
    }

    // One request; `headers` are extra lines ("x-request-id: abc").
    HttpAnswer request(const std::string& method, const std::string& target,
                       const std::string& body = {},
                       const std::map<std::string, std::string>& headers = {},
                       double timeout_seconds = 20) {
        std::string text = method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
        for (const auto& [name, value] : headers) text += name + ": " + value + "\r\n";
        if (!body.empty() || method == "POST")
            text += "Content-Length: " + std::to_string(body.size()) + "\r\n";
        text += "\r\n" + body;
        if (!send(text)) throw std::runtime_error("the server closed the connection");
        return read_answer(timeout_seconds);
    }

    // The next answer on this connection; throws when none comes within the timeout.
    HttpAnswer read_answer(double timeout_seconds = 20) {
        HttpAnswer answer = read_head(timeout_seconds);
        read_body(answer, timeout_seconds);
        return answer;
    }

    // The body of an answer whose head read_head returned, by its Content-Length or chunked.
    void read_body(HttpAnswer& answer, double timeout_seconds = 20) {
        if (answer.header("transfer-encoding") == "chunked") {
            while (auto chunk = read_chunk(timeout_seconds)) answer.body += *chunk;
            return;
        }
        set_deadline(timeout_seconds);
        const std::size_t length = std::stoul(
            answer.header("content-length").empty() ? "0" : answer.header("content-length"));
        while (pending_.size() < length) fill();
        answer.body = pending_.substr(0, length);
        pending_.erase(0, length);
    }

    // What is left on the connection: the bytes already received but not read as an answer, and
    // whatever comes until the server closes or `timeout_seconds` pass (a body without framing,
    // the rest of an answer that broke off). Never throws.
    std::string read_rest(double timeout_seconds) {
        set_deadline(timeout_seconds);
        while (true) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                deadline_ - std::chrono::steady_clock::now());
            pollfd p{fd_, POLLIN, 0};
            if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
            char buffer[65536];
            const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
            if (n <= 0) break;
            pending_.append(buffer, static_cast<std::size_t>(n));
        }
        return std::exchange(pending_, std::string());
    }

    // The status and header of the next answer (a 100 Continue skipped); its body is left to
    // read, e.g. chunk by chunk as a streamed answer arrives.
    HttpAnswer read_head(double timeout_seconds = 20) {
        set_deadline(timeout_seconds);
        std::size_t end;
        while ((end = pending_.find("\r\n\r\n")) == std::string::npos) fill();
        HttpAnswer answer;
        const std::string head = pending_.substr(0, end);
        pending_.erase(0, end + 4);
        std::size_t line_end = head.find("\r\n");
        const std::string status_line = head.substr(0, line_end);
        answer.status = std::stoi(status_line.substr(9, 3));
        while (line_end != std::string::npos) {
            const std::size_t start = line_end + 2;
            line_end = head.find("\r\n", start);
            const std::string line = head.substr(start, line_end - start);
            const std::size_t colon = line.find(':');
            if (colon == std::string::npos) continue;
            std::string name = line.substr(0, colon);
            for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            std::size_t value = colon + 1;
            while (value < line.size() && line[value] == ' ') ++value;
            answer.headers[name] = line.substr(value);
        }
        if (answer.status == 100) return read_head(timeout_seconds);
        return answer;
    }

    // The next chunk of a chunked body; nullopt once the last (empty) chunk came. Throws when
    // none comes within the timeout.
    std::optional<std::string> read_chunk(double timeout_seconds = 20) {
        set_deadline(timeout_seconds);
        std::size_t size_end;
        while ((size_end = pending_.find("\r\n")) == std::string::npos) fill();
        const std::size_t size = std::stoul(pending_.substr(0, size_end), nullptr, 16);
        while (pending_.size() < size_end + 2 + size + 2) fill();
        std::string chunk = pending_.substr(size_end + 2, size);
        pending_.erase(0, size_end + 2 + size + 2);
        if (size == 0) return std::nullopt;
        return chunk;
    }

    // True when the server has closed the connection (read returns 0) within the timeout.
    bool closed_by_server(double timeout_seconds) {
        pollfd p{fd_, POLLIN, 0};
        const int ready = ::poll(&p, 1, static_cast<int>(timeout_seconds * 1000));
        if (ready <= 0) return false;
        char byte;
        const ssize_t n = ::recv(fd_, &byte, 1, MSG_PEEK);
        return n <= 0;
    }

    int fd() const { return fd_; }

  private:
    void set_deadline(double timeout_seconds) {
        deadline_ = std::chrono::steady_clock::now() +
                    std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                        std::chrono::duration<double>(timeout_seconds));
    }
    void fill() {
        const auto left = deadline_ - std::chrono::steady_clock::now();
        const int wait_ms =
            static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(left).count());
        pollfd p{fd_, POLLIN, 0};
        if (wait_ms <= 0 || ::poll(&p, 1, wait_ms) <= 0)
            throw std::runtime_error("no answer in time");
        char buffer[65536];
        const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
        if (n <= 0) throw std::runtime_error("the server closed the connection");
        pending_.append(buffer, static_cast<std::size_t>(n));
    }

    int fd_ = -1;
    std::string pending_;
    std::chrono::steady_clock::time_point deadline_{};
};

// An answer's body as JSON (a ValueError naming "answer" when it is not), its start shown when a
// check fails.
inline Json json_of(const HttpAnswer& answer) {
    INFO(answer.body.substr(0, 2000));
    return parse_json(answer.body, "answer");
}

}  // namespace cmfpipe::testing
