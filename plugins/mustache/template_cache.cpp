#include "template_cache.hpp"

#include <functional>

#include "parser.hpp"

namespace cmfpipe::mustache {

std::size_t TemplateCache::KeyHash::operator()(const Key& k) const noexcept {
    std::hash<std::string_view> h;
    std::size_t seed = h(k.text);
    seed ^= h(k.open) + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
    seed ^= h(k.close) + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
    return seed;
}

std::shared_ptr<const Template> TemplateCache::get(std::string_view text,
                                                   const Delimiters& delimiters,
                                                   const Origin& origin, int max_nesting) {
    const Key key{delimiters.open, delimiters.close, text};
    std::shared_ptr<const Template> cached;
    {
        std::lock_guard lock(mutex_);
        if (auto it = index_.find(key); it != index_.end()) {
            recent_.splice(recent_.begin(), recent_, it->second);
            cached = it->second->compiled;
        }
    }
    if (cached) {
        // Compiled under a looser bound: parsing again reports where this one is exceeded.
        if (cached->nesting > max_nesting) parse(text, delimiters, origin, max_nesting);
        return cached;
    }
    auto compiled = std::make_shared<const Template>(parse(text, delimiters, origin, max_nesting));
    if (capacity_ == 0) return compiled;

    std::lock_guard lock(mutex_);
    if (auto it = index_.find(key); it != index_.end())
        return it->second->compiled;  // another thread won
    recent_.push_front(Entry{delimiters.open, delimiters.close, compiled});
    const Entry& e = recent_.front();
    index_.emplace(Key{e.open, e.close, *compiled->source}, recent_.begin());
    if (recent_.size() > capacity_) {
        const Entry& old = recent_.back();
        index_.erase(Key{old.open, old.close, *old.compiled->source});
        recent_.pop_back();
    }
    return compiled;
}

std::size_t TemplateCache::size() const {
    std::lock_guard lock(mutex_);
    return recent_.size();
}

}  // namespace cmfpipe::mustache
