#pragma once
// What every fuzz target shares: the input admitted the way a real entry point admits it (the
// limits policy first), the bundled plugins, and the rule that only a cmfpipe::Error may escape.
// Any other exception, a crash, a sanitizer report, a hang or a blown memory bound is a finding.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/limits.hpp"
#include "cmfpipe/utf8.hpp"
#include "support/registry.hpp"

namespace cmfpipe::fuzz {

// Files and stdin are read with read_text_file (size, then UTF-8); model completions and HTTP
// request bodies are taken as they come (size only: the JSON parser judges a body's bytes).
enum class Admit { text_file, model_output, http_body };

inline std::optional<std::string_view> admit(const std::uint8_t* data, std::size_t size,
                                             Admit how) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    try {
        check_input_size(input.size(), "<fuzz input>");
        if (how == Admit::text_file) check_utf8(input, "<fuzz input>");
    } catch (const Error&) {
        return std::nullopt;  // refused where a real entry point refuses it
    }
    return input;
}

// The limits policy while fuzzing: the defaults but YAML alias expansion stops at 10,000 nodes
// instead of 100,000. Fuzzing explores paths; tests/limits proves each bound at its default. An
// input that expands to 100,000 nodes costs ~80 MB under ASan, and ASan's allocator keeps what it
// once held, so at the default a long run crosses libFuzzer's 512 MB process limit on inputs the
// g++ build handles in 20 MB.
inline void use_fuzzing_limits() {
    static const bool applied = [] {
        InputLimits limits = input_limits();
        limits.max_yaml_nodes = 10'000;
        set_input_limits(limits);
        return true;
    }();
    (void)applied;
}

// Runs `body` on the admitted input; a cmfpipe::Error is the expected way to refuse it.
template <typename Body>
int run(const std::uint8_t* data, std::size_t size, Admit how, Body&& body) {
    use_fuzzing_limits();
    const auto input = admit(data, size, how);
    if (!input) return 0;
    try {
        body(*input);
    } catch (const Error&) {
    }
    return 0;
}

// The plugins the CLI loads (build/lib/cmfpipe/plugins, found beside libcmfpipe.so).
inline const Registry& plugins() {
    return testing::bundled_plugins();
}

}  // namespace cmfpipe::fuzz
