// The per-thread free lists behind Pooled.
#include "pool.hpp"

#include <new>

namespace cmfpipe::jinja2 {
namespace {

constexpr std::size_t kGranule = 16;
constexpr std::size_t kClasses = 16;       // blocks of up to 256 bytes are pooled
constexpr std::size_t kMaxPerClass = 512;  // beyond this a freed block goes back to the heap

struct FreeBlock {
    FreeBlock* next;
};

struct FreeLists {
    FreeBlock* head[kClasses] = {};
    std::size_t count[kClasses] = {};
    ~FreeLists();
};

// Set once this thread's lists are gone (thread exit): later frees go straight to the heap.
// Trivially destructible, so it stays readable while the thread's other locals are destroyed.
thread_local bool t_closed = false;
thread_local FreeLists t_lists;

FreeLists::~FreeLists() {
    t_closed = true;
    for (std::size_t c = 0; c < kClasses; ++c) {
        while (FreeBlock* b = head[c]) {
            head[c] = b->next;
            ::operator delete(b);
        }
    }
}

std::size_t size_class(std::size_t bytes) {
    return (bytes + kGranule - 1) / kGranule - 1;
}

}  // namespace

void* pool_allocate(std::size_t bytes) {
    std::size_t c = size_class(bytes);
    if (c < kClasses && !t_closed) {
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

void pool_free(void* block, std::size_t bytes) noexcept {
    std::size_t c = size_class(bytes);
    if (c < kClasses && !t_closed) {
        FreeLists& lists = t_lists;
        if (lists.count[c] < kMaxPerClass) {
            auto* b = static_cast<FreeBlock*>(block);
            b->next = lists.head[c];
            lists.head[c] = b;
            ++lists.count[c];
            return;
        }
    }
    ::operator delete(block);
}

}  // namespace cmfpipe::jinja2
