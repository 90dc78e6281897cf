// The compiled-template cache.
#include "cache.hpp"

#include <algorithm>
#include <functional>
#include <mutex>

namespace cmfpipe::jinja2 {

// A cheap key: size, both ends and a sample of the middle. Hashing every byte of a 20 KB
// template on every render would cost more than rendering many of them; equal keys are
// disambiguated by comparing the full source (memcmp), so collisions only cost a compare.
std::size_t TemplateCache::key_of(std::string_view source, const CompileOptions& options) {
    std::hash<std::string_view> hash;
    const std::size_t n = source.size();
    std::size_t h = hash(source.substr(0, 256));
    if (n > 256) h = h * 31 + hash(source.substr(n - std::min<std::size_t>(256, n - 256)));
    std::size_t step = n / 64 + 1;
    std::uint64_t sample = 0xcbf29ce484222325ULL;  // FNV-1a over every step-th byte
    for (std::size_t i = 0; i < n; i += step)
        sample = (sample ^ static_cast<unsigned char>(source[i])) * 0x100000001b3ULL;
    h ^= static_cast<std::size_t>(sample) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h ^= n * 0x9e3779b97f4a7c15ULL;
    h ^= hash(options.name) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h ^= static_cast<std::size_t>(options.profile) * 0x100000001b3ULL +
         static_cast<std::size_t>(options.max_nesting_depth);
    return h;
}

TemplateCache::Entry* TemplateCache::find(std::size_t key, std::string_view source,
                                          const CompileOptions& options) {
    auto range = entries_.equal_range(key);
    for (auto it = range.first; it != range.second; ++it) {
        const Template& t = *it->second.tpl;
        if (it->second.raw_source == source && t.profile == options.profile &&
            t.name == options.name)
            return &it->second;
    }
    return nullptr;
}

std::shared_ptr<const Template> TemplateCache::get(std::string_view source,
                                                   const CompileOptions& options) {
    std::size_t key = key_of(source, options);
    {
        std::shared_lock lock(mutex_);
        if (Entry* e = find(key, source, options)) {
            e->last_used.store(clock_.fetch_add(1) + 1, std::memory_order_relaxed);
            hits_.fetch_add(1, std::memory_order_relaxed);
            return e->tpl;
        }
    }
    misses_.fetch_add(1, std::memory_order_relaxed);
    auto tpl = compile(source, options);  // throws on syntax errors; nothing cached then
    std::unique_lock lock(mutex_);
    if (Entry* e = find(key, source, options)) return e->tpl;  // compiled by another thread
    entries_.emplace(std::piecewise_construct, std::forward_as_tuple(key),
                     std::forward_as_tuple(tpl, source, clock_.fetch_add(1) + 1));
    while (entries_.size() > capacity_) {  // evict the least recently used
        auto victim = entries_.begin();
        for (auto it = entries_.begin(); it != entries_.end(); ++it)
            if (it->second.last_used.load(std::memory_order_relaxed) <
                victim->second.last_used.load(std::memory_order_relaxed))
                victim = it;
        entries_.erase(victim);
    }
    return tpl;
}

std::size_t TemplateCache::size() const {
    std::shared_lock lock(mutex_);
    return entries_.size();
}

}  // namespace cmfpipe::jinja2
