// The agent cache of agent_cache.hpp: a map by path and a recency list, under one mutex held only
// for lookups and stores (never while a file loads).
#include "cmfpipe/core/prompty/agent_cache.hpp"

#include <algorithm>

namespace cmfpipe::prompty {

AgentCache::AgentCache(LoadOptions options, std::size_t capacity)
    : options_(std::move(options)), capacity_(std::max<std::size_t>(capacity, 1)) {
    options_.trace = {};
}

std::shared_ptr<const Agent> AgentCache::load(const std::filesystem::path& file) const {
    std::string key = file.string();
    const std::optional<FileStamp> stamp = stamp_of(file);
    {
        std::lock_guard lock(mutex_);
        auto found = entries_.find(key);
        if (found != entries_.end()) {
            if (stamp && found->second.stamp == *stamp) {
                ++hits_;
                recency_.splice(recency_.begin(), recency_, found->second.recency);
                return found->second.agent;
            }
            recency_.erase(found->second.recency);
            entries_.erase(found);
        }
        ++misses_;
    }
    // Gone: prompty::load says so, as it would without the cache.
    auto agent = std::make_shared<const Agent>(prompty::load(file, options_));
    if (!stamp) return agent;
    // The file may have changed while it loaded: its stamp is taken again, and the agent is kept
    // only under a stamp read before and after the load alike (else the next call loads again).
    if (stamp_of(file) != stamp) return agent;
    std::lock_guard lock(mutex_);
    auto found = entries_.find(key);
    if (found != entries_.end()) {  // another thread loaded it meanwhile: the newer one stays
        found->second = Entry{*stamp, agent, found->second.recency};
        recency_.splice(recency_.begin(), recency_, found->second.recency);
        return agent;
    }
    recency_.push_front(key);
    entries_.emplace(std::move(key), Entry{*stamp, agent, recency_.begin()});
    while (entries_.size() > capacity_) {
        entries_.erase(recency_.back());
        recency_.pop_back();
    }
    return agent;
}

std::size_t AgentCache::size() const {
    std::lock_guard lock(mutex_);
    return entries_.size();
}

std::size_t AgentCache::hits() const {
    std::lock_guard lock(mutex_);
    return hits_;
}

std::size_t AgentCache::misses() const {
    std::lock_guard lock(mutex_);
    return misses_;
}

}  // namespace cmfpipe::prompty
