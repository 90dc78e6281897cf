#pragma once
// Where the engine's small shared objects (strings, lists, dicts, callables) get their memory.
// A render makes and frees them by the hundred; glibc's per-thread cache keeps only seven blocks
// of a size and sends the rest through its shared bins, which dominated the profile. Each thread
// keeps its own free list per 16-byte size class instead, bounded, and returns the blocks to the
// heap when it ends.
#include <cstddef>

namespace cmfpipe::jinja2 {

void* pool_allocate(std::size_t bytes);
void pool_free(void* block, std::size_t bytes) noexcept;

// Objects deriving from Pooled (through Shared) are allocated from the pool; a derived class's
// own size reaches operator delete because the destructors that matter are virtual or exact.
struct Pooled {
    static void* operator new(std::size_t bytes) { return pool_allocate(bytes); }
    static void operator delete(void* block, std::size_t bytes) noexcept {
        pool_free(block, bytes);
    }
};

}  // namespace cmfpipe::jinja2
