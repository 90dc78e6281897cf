// The per-thread free lists behind Pooled.
#include "pool.hpp"

#include <cstdint>
#include <new>

// Under AddressSanitizer blocks go straight to the heap, so a use after free stays visible.
#if defined(__SANITIZE_ADDRESS__)
#define CMFPIPE_POOL_ENABLED 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CMFPIPE_POOL_ENABLED 0
#endif
#endif
#ifndef CMFPIPE_POOL_ENABLED
#define CMFPIPE_POOL_ENABLED 1
#endif

namespace cmfpipe::jinja2 {
namespace {

constexpr std::size_t kGranule = 16;
constexpr std::size_t kClasses = 16;       // blocks of up to 256 bytes are pooled
constexpr std::size_t kMaxPerClass = 512;  // beyond this a freed block goes back to the heap

struct FreeBlock {
    FreeBlock* next;
};

// What a thread's free lists may do: one byte, so a free checks it once.
enum ListsState : std::uint8_t {
    kUnarmed,  // nothing kept yet: the Reaper is not registered for this thread
    kKeeping,  // freed blocks are kept (the Reaper will return them)
    kClosed,   // this thread is ending: frees go straight to the heap
};

// Trivially destructible and zero-initialised, so reaching it costs no initialisation check.
struct FreeLists {
    FreeBlock* head[kClasses];
    std::uint32_t count[kClasses];
    std::uint8_t state;  // ListsState
};
thread_local FreeLists t_lists;

// Returns this thread's blocks to the heap when the thread ends; reached once per thread, when
// the first block is kept.
struct Reaper {
    bool armed = false;
    ~Reaper() {
        if (!armed) return;
        t_lists.state = kClosed;
        for (std::size_t c = 0; c < kClasses; ++c) {
            while (FreeBlock* b = t_lists.head[c]) {
                t_lists.head[c] = b->next;
                ::operator delete(b);
            }
        }
    }
};
thread_local Reaper t_reaper;

std::size_t size_class(std::size_t bytes) {
    return (bytes + kGranule - 1) / kGranule - 1;
}

}  // namespace

bool pool_recycles() {
    return CMFPIPE_POOL_ENABLED != 0;
}

void* pool_allocate(std::size_t bytes) {
    std::size_t c = size_class(bytes);
    if (CMFPIPE_POOL_ENABLED && c < kClasses) {
        FreeLists& lists = t_lists;
        if (FreeBlock* b = lists.head[c]) {
            lists.head[c] = b->next;
            --lists.count[c];
            return b;
        }
        return ::operator new((c + 1) * kGranule);
    }
    return ::operator new(bytes);
}

namespace {

void keep(FreeLists& lists, void* block, std::size_t c) {
    auto* b = static_cast<FreeBlock*>(block);
    b->next = lists.head[c];
    lists.head[c] = b;
    ++lists.count[c];
}

// A thread's first kept block arms its Reaper; a full list or an ending thread gives the block
// back to the heap. Out of line, so the usual free saves no registers.
[[gnu::noinline]] void free_slowly(void* block, std::size_t c) noexcept {
    FreeLists& lists = t_lists;
    if (CMFPIPE_POOL_ENABLED && c < kClasses && lists.state == kUnarmed) {
        lists.state = kKeeping;
        t_reaper.armed = true;  // registers the Reaper's destructor for this thread
        keep(lists, block, c);
        return;
    }
    ::operator delete(block);
}

}  // namespace

void pool_free(void* block, std::size_t bytes) noexcept {
    std::size_t c = size_class(bytes);
    FreeLists& lists = t_lists;
    if (CMFPIPE_POOL_ENABLED && c < kClasses && lists.state == kKeeping &&
        lists.count[c] < kMaxPerClass) {
        keep(lists, block, c);
        return;
    }
    free_slowly(block, c);
}

}  // namespace cmfpipe::jinja2
