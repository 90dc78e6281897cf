#pragma once
// Where the shared conformance corpora are. Absent corpus: the test reports itself skipped
// (exit code 77, which ctest shows as "Skipped"), loudly, never as passed.
#include <cstdlib>
#include <filesystem>
#include <iostream>

namespace cmfpipe::testing {

inline std::filesystem::path corpus_root() {
    if (const char* env = std::getenv("CMFPIPE_CORPUS"); env && *env) return env;
    return CMFPIPE_CORPUS_DEFAULT;
}

// The corpus folder `sub` (e.g. "chat-templates"), or the test exits as skipped.
inline std::filesystem::path require_corpus(const std::filesystem::path& sub) {
    auto dir = corpus_root() / sub;
    if (!std::filesystem::exists(dir)) {
        std::cerr << "\n*** SKIPPED: corpus folder " << dir
                  << " is absent (set CMFPIPE_CORPUS to the shared corpus) ***\n";
        std::exit(77);
    }
    return dir;
}

}  // namespace cmfpipe::testing
