// The compiled-template cache.
#include "cache.hpp"

#include <algorithm>
#include <functional>

namespace cmfpipe::jinja2 {

// A cheap key: size, both ends and a sample of the middle. Hashing every byte of a 20 KB
// template on every render would cost more than rendering many of them; equal keys are
// disambiguated by comparing the full source (memcmp), so collisions only cost a compare.
std::size_t TemplateCache::key_of(std::string_view source, const CompileOptions& options) {
    std::string sample;
    sample.reserve(600);
    sample.append(source.substr(0, 256));
    if (source.size() > 256)
        sample.append(
            source.substr(source.size() - std::min<std::size_t>(256, source.size() - 256)));
    std::size_t step = source.size() / 64 + 1;
    for (std::size_t i = 0; i < source.size(); i += step) sample += source[i];
    std::size_t h = std::hash<std::string>{}(sample);
    h ^= source.size() * 0x9e3779b97f4a7c15ULL;
    h ^= std::hash<std::string>{}(options.name) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h ^= static_cast<std::size_t>(options.profile) * 0x100000001b3ULL +
         static_cast<std::size_t>(options.max_nesting_depth);
    return h;
}

std::shared_ptr<const Template> TemplateCache::get(std::string_view source,
                                                   const CompileOptions& options) {
    std::size_t key = key_of(source, options);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        auto range = entries_.equal_range(key);
        for (auto it = range.first; it != range.second; ++it) {
            const Template& t = *it->second.tpl;
            if (it->second.raw_source == source && t.profile == options.profile &&
                t.name == options.name) {
                lru_.splice(lru_.begin(), lru_, it->second.lru);
                ++hits_;
                return it->second.tpl;
            }
        }
        ++misses_;
    }
    auto tpl = compile(source, options);  // throws on syntax errors; nothing cached then
    std::lock_guard<std::mutex> lock(mutex_);
    lru_.push_front(key);
    entries_.emplace(key, Entry{tpl, std::string(source), lru_.begin()});
    while (entries_.size() > capacity_ && !lru_.empty()) {
        std::size_t victim = lru_.back();
        auto range = entries_.equal_range(victim);
        for (auto it = range.first; it != range.second; ++it) {
            if (it->second.lru == std::prev(lru_.end())) {
                entries_.erase(it);
                break;
            }
        }
        lru_.pop_back();
    }
    return tpl;
}

std::size_t TemplateCache::size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return entries_.size();
}
std::size_t TemplateCache::hits() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return hits_;
}
std::size_t TemplateCache::misses() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return misses_;
}

}  // namespace cmfpipe::jinja2
