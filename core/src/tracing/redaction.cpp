// Secret-like keys -> "[REDACTED]" (spec §3.4), by words rather than raw substrings so that
// usage counts (prompt_tokens) and people (authors) stay visible; secrets known by value (resolved
// ${env:} references) wherever they appear in a string.
#include <array>
#include <cctype>
#include <string>
#include <vector>

#include "cmfpipe/core/tracing.hpp"

namespace cmfpipe::tracing {
namespace {

// "x-apiKey_SECRET2" -> ["x", "api", "key", "secret2"]
std::vector<std::string> words_of(std::string_view key) {
    std::vector<std::string> words;
    std::string current;
    auto flush = [&] {
        if (!current.empty()) words.push_back(std::move(current));
        current.clear();
    };
    for (std::size_t i = 0; i < key.size(); ++i) {
        unsigned char c = static_cast<unsigned char>(key[i]);
        if (!std::isalnum(c)) {
            flush();
            continue;
        }
        // A hump: lower->Upper, or the last capital of an acronym before a lowercase ("APIKey").
        bool upper = std::isupper(c) != 0;
        if (upper && !current.empty()) {
            unsigned char prev = static_cast<unsigned char>(key[i - 1]);
            bool next_lower =
                i + 1 < key.size() && std::islower(static_cast<unsigned char>(key[i + 1]));
            if (std::islower(prev) || std::isdigit(prev) || (std::isupper(prev) && next_lower))
                flush();
        }
        current += static_cast<char>(std::tolower(c));
    }
    flush();
    return words;
}

bool is_secret_word(const std::string& w) {
    static const std::array<std::string_view, 15> secret = {
        "secret", "secrets", "password",      "passwords",  "passwd",
        "token",  "auth",    "oauth",         "credential", "credentials",
        "cookie", "cookies", "authorization", "apikey",     "passphrase"};
    for (auto s : secret) {
        if (w == s) return true;
    }
    return false;
}

// Values this short are redacted only as whole strings: inside text they would match by chance.
constexpr std::size_t min_value_in_text = 4;

Json redact_string(const std::string& text, const std::vector<std::string>& values) {
    std::string out = text;
    for (const auto& secret : values) {
        if (secret.empty()) continue;
        if (out == secret) return "[REDACTED]";
        if (secret.size() < min_value_in_text) continue;
        for (auto at = out.find(secret); at != std::string::npos;
             at = out.find(secret, at + std::string_view("[REDACTED]").size())) {
            out.replace(at, secret.size(), "[REDACTED]");
        }
    }
    return out;
}

}  // namespace

bool is_secret_key(std::string_view key, const Json& value) {
    auto words = words_of(key);
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (is_secret_word(words[i])) return true;
        bool next_is_key = i + 1 < words.size() && words[i + 1] == "key";
        if ((words[i] == "api" || words[i] == "private") && next_is_key) return true;
        // prompt_tokens: 12 is a count and its *_details an object of counts; token strings go.
        if (words[i] == "tokens" && (value.is_string() || value.is_array())) return true;
    }
    return false;
}

Json redact(const Json& value, const std::vector<std::string>& values) {
    if (value.is_object()) {
        Json out = Json::object();
        for (const auto& [key, item] : value.items()) {
            out[key] = is_secret_key(key, item) ? Json("[REDACTED]") : redact(item, values);
        }
        return out;
    }
    if (value.is_array()) {
        Json out = Json::array();
        for (const auto& item : value) out.push_back(redact(item, values));
        return out;
    }
    if (value.is_string() && !values.empty())
        return redact_string(value.get_ref<const std::string&>(), values);
    return value;
}

}  // namespace cmfpipe::tracing
