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
// Whether freed blocks are kept for reuse (false under AddressSanitizer).
bool pool_recycles();

// Objects deriving from Pooled (through Shared) are allocated from the pool. operator delete must
// get the size the object was made with: every pooled type is final, or (Callable) deleted through
// its virtual destructor.
struct Pooled {
    static void* operator new(std::size_t bytes) { return pool_allocate(bytes); }
    static void operator delete(void* block, std::size_t bytes) noexcept {
        pool_free(block, bytes);
    }
};

// The same pool for the engine's growing arrays (list items, dict items, call arguments), which
// are small in nearly every render.
template <class T>
struct PoolAllocator {
    using value_type = T;
    PoolAllocator() = default;
    template <class U>
    PoolAllocator(const PoolAllocator<U>&) {}
    T* allocate(std::size_t n) { return static_cast<T*>(pool_allocate(n * sizeof(T))); }
    void deallocate(T* p, std::size_t n) noexcept { pool_free(p, n * sizeof(T)); }
    template <class U>
    bool operator==(const PoolAllocator<U>&) const {
        return true;
    }
};

}  // namespace cmfpipe::jinja2
