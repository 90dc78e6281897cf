#pragma once
// Compiled templates keyed by a content hash (sampled; see key_of) with profile and name, bounded
// LRU, thread-safe. A hit compares the full source, so a collision can never serve the wrong
// template.
#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
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
    std::size_t hits() const;
    std::size_t misses() const;

  private:
    struct Entry {
        std::shared_ptr<const Template> tpl;
        std::string raw_source;
        std::list<std::size_t>::iterator lru;
    };
    static std::size_t key_of(std::string_view source, const CompileOptions& options);

    std::size_t capacity_;
    mutable std::mutex mutex_;
    std::unordered_multimap<std::size_t, Entry> entries_;
    std::list<std::size_t> lru_;  // most recent first
    std::size_t hits_ = 0, misses_ = 0;
};

}  // namespace cmfpipe::jinja2
