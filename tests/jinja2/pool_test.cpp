// The engine's per-thread block pool (plugins/jinja2/pool.hpp): a freed block is what the next
// allocation of its size class gets, sizes beyond the classes go to the heap, and blocks may be
// freed on another thread than the one that made them.
#include <catch2/catch.hpp>

#include <cstring>
#include <thread>
#include <vector>

#include "pool.hpp"

using namespace cmfpipe::jinja2;

TEST_CASE("jinja2 pool: a freed block is the next one given for its size class") {
    if (!pool_recycles()) {
        WARN("pool off under AddressSanitizer: blocks go straight to the heap");
        return;
    }
    for (std::size_t bytes : {1u, 16u, 17u, 100u, 256u}) {
        void* a = pool_allocate(bytes);
        std::memset(a, 0x5A, bytes);  // the whole size is usable
        pool_free(a, bytes);
        void* b = pool_allocate(bytes);
        CHECK(b == a);
        pool_free(b, bytes);
    }
    void* a = pool_allocate(17);  // 17..32 bytes share a class
    pool_free(a, 17);
    void* b = pool_allocate(32);
    CHECK(b == a);
    pool_free(b, 32);
    void* c = pool_allocate(33);  // the next class
    CHECK(c != a);
    pool_free(c, 33);
}

TEST_CASE("jinja2 pool: blocks beyond 256 bytes and blocks freed on another thread") {
    void* big = pool_allocate(4096);
    std::memset(big, 1, 4096);
    pool_free(big, 4096);

    std::vector<void*> made(2000);
    std::thread maker([&] {
        for (std::size_t i = 0; i < made.size(); ++i) {
            made[i] = pool_allocate(48);
            std::memset(made[i], static_cast<int>(i & 0xFF), 48);
        }
    });
    maker.join();  // the maker's own lists are gone with it; its blocks live on
    for (std::size_t i = 0; i < made.size(); ++i) {
        CHECK(static_cast<unsigned char*>(made[i])[47] == static_cast<unsigned char>(i & 0xFF));
        pool_free(made[i], 48);  // kept here up to the class bound, the rest to the heap
    }
    std::vector<void*> again(made.size());
    for (auto& p : again) p = pool_allocate(48);
    for (auto* p : again) pool_free(p, 48);
    SUCCEED("2000 blocks made on one thread were freed and remade on another");
}
