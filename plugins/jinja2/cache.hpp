#pragma once
// Compiled templates keyed by a content hash (sampled; see key_of) with profile and name, bounded,
// thread-safe. A hit compares the full source, so a collision can never serve the wrong template.
// Hits share the lock (renders on many threads do not queue behind each other); only a miss
// takes it alone. Recency is a per-entry stamp a hit writes atomically, and the least recent
// entry goes when a miss overfills the cache.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "template.hpp"

namespace cmfpipe::jinja2 {

class TemplateCache {
  public:
    explicit TemplateCache(std::size_t capacity = 256) : capacity_(capacity) {}

    // The compiled template for `source`, compiling it (outside the lock) on a miss.
    std::shared_ptr<const Template> get(std::string_view source, const CompileOptions& options);

    std::size_t size() const;
    std::size_t hits() const { return hits_.load(std::memory_order_relaxed); }
    std::size_t misses() const { return misses_.load(std::memory_order_relaxed); }

  private:
    struct Entry {
        Entry(std::shared_ptr<const Template> t, std::string_view src, std::uint64_t stamp)
            : tpl(std::move(t)), raw_source(src), last_used(stamp) {}
        std::shared_ptr<const Template> tpl;
        std::string raw_source;
        std::atomic<std::uint64_t> last_used;
    };
    static std::size_t key_of(std::string_view source, const CompileOptions& options);
    // The entry for source under key, or null; the caller holds the lock (either way).
    Entry* find(std::size_t key, std::string_view source, const CompileOptions& options);

    std::size_t capacity_;
    mutable std::shared_mutex mutex_;
    std::unordered_multimap<std::size_t, Entry> entries_;
    std::atomic<std::uint64_t> clock_{0};
    std::atomic<std::size_t> hits_{0}, misses_{0};
};

}  // namespace cmfpipe::jinja2
