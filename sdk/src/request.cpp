// Rich kinds, rich-input tokens, the request's randomness and thread normalisation.
#include "cmfpipe/request.hpp"

#include <pthread.h>
#include <sys/random.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <vector>

#include "cmfpipe/errors.hpp"

namespace cmfpipe {
namespace {

constexpr std::array<std::string_view, 4> rich_kind_names = {"thread", "image", "file", "audio"};

Json normalize_message(const Json& message, std::string_view input_name, std::size_t index) {
    auto fail = [&](const std::string& why) -> Json {
        throw ValueError("thread input '" + std::string(input_name) + "': message " +
                         std::to_string(index) + " " + why);
    };
    if (!message.is_object()) return fail("is not an object");
    auto role = message.find("role");
    if (role == message.end() || !role->is_string()) return fail("has no role");
    Json out = message;
    auto content = message.find("content");
    if (content == message.end()) {
        content = message.find("parts");
        out.erase("parts");
    }
    if (content == message.end() || content->is_null()) {
        out["content"] = Json::array();
    } else if (content->is_string()) {
        out["content"] = Json::array({{{"kind", "text"}, {"value", *content}}});
    } else if (content->is_array()) {
        out["content"] = *content;
    } else {
        return fail("has content that is neither text nor a list of parts");
    }
    return out;
}

void fill_from_getrandom(unsigned char* out, std::size_t bytes) {
    std::size_t filled = 0;
    while (filled < bytes) {
        ssize_t got = ::getrandom(out + filled, bytes - filled, 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            throw Error(std::string("getrandom failed: ") + std::strerror(errno));
        }
        filled += static_cast<std::size_t>(got);
    }
}

// getrandom costs a system call (about half a microsecond, a quarter of a strict prepare), so each
// thread draws a batch and hands it out, every byte once, wiping what it handed out. A forked
// child must not repeat its parent's bytes: fork bumps a generation that empties every batch.
std::atomic<unsigned> fork_generation{0};

struct RandomBatch {
    std::array<unsigned char, 256> bytes{};
    std::size_t used = 256;
    unsigned generation = 0;
};

void take_random_bytes(unsigned char* out, std::size_t count) {
    static const int registered =
        ::pthread_atfork(nullptr, nullptr, [] { fork_generation.fetch_add(1); });
    (void)registered;
    thread_local RandomBatch batch;
    if (count > batch.bytes.size()) return fill_from_getrandom(out, count);
    const unsigned generation = fork_generation.load();
    if (batch.generation != generation || batch.bytes.size() - batch.used < count) {
        fill_from_getrandom(batch.bytes.data(), batch.bytes.size());
        batch.used = 0;
        batch.generation = generation;
    }
    std::memcpy(out, batch.bytes.data() + batch.used, count);
    std::memset(batch.bytes.data() + batch.used, 0, count);
    batch.used += count;
}

}  // namespace

std::string_view to_string(RichKind kind) {
    return rich_kind_names.at(static_cast<std::size_t>(kind));
}

std::optional<RichKind> rich_kind_from_string(std::string_view text) {
    for (std::size_t i = 0; i < rich_kind_names.size(); ++i) {
        if (rich_kind_names[i] == text) return static_cast<RichKind>(i);
    }
    return std::nullopt;
}

std::string rich_input_token(std::string_view hex, std::string_view input_name) {
    std::string out(rich_input_token_prefix);
    out += hex;
    out += '_';
    out += input_name;
    out += "__";
    return out;
}

std::string random_hex(std::size_t bytes) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out(bytes * 2, '0');
    // Through a small buffer on the stack: a nonce is drawn on every strict render.
    unsigned char buffer[32];
    for (std::size_t done = 0; done < bytes; done += sizeof buffer) {
        const std::size_t count = std::min(sizeof buffer, bytes - done);
        take_random_bytes(buffer, count);
        for (std::size_t i = 0; i < count; ++i) {
            out[2 * (done + i)] = digits[buffer[i] >> 4];
            out[2 * (done + i) + 1] = digits[buffer[i] & 0xf];
        }
        std::memset(buffer, 0, count);
    }
    return out;
}

Json normalize_thread(const Json& value, std::string_view input_name) {
    const Json* messages = &value;
    if (value.is_object()) {
        auto inner = value.find("messages");
        if (inner == value.end()) {
            throw ValueError("thread input '" + std::string(input_name) +
                             "' must be a list of messages (or {\"messages\": [...]})");
        }
        messages = &*inner;
    }
    if (!messages->is_array()) {
        throw ValueError("thread input '" + std::string(input_name) +
                         "' must be a list of messages, not " + std::string(messages->type_name()));
    }
    Json out = Json::array();
    for (std::size_t i = 0; i < messages->size(); ++i)
        out.push_back(normalize_message((*messages)[i], input_name, i));
    return out;
}

}  // namespace cmfpipe
