#pragma once
// Loaded agents kept for a long-running host: load(file) answers from the cache while the file's
// stamp (modification time, size, inode: one stat()) is the one it was loaded with, and loads it
// again when it changed. Bounded: past `capacity` files, the least recently used is dropped.
// Thread-safe; a load runs outside the lock, so requests for other files go on meanwhile.
//
// What the cache cannot see: the files a ${file:} reference read and the environment ${env:} read
// are those of the first load, until the .prompty itself changes. Loads are not traced.
#include <cstddef>
#include <filesystem>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "cmfpipe/core/file_stamp.hpp"
#include "cmfpipe/core/prompty/loader.hpp"

namespace cmfpipe::prompty {

class AgentCache {
  public:
    static constexpr std::size_t default_capacity = 256;

    // `options` are used for every load (their `trace` is not). A capacity of 0 is taken as 1.
    explicit AgentCache(LoadOptions options = {}, std::size_t capacity = default_capacity);

    // The agent of `file` (the path as given is the key). A file that is gone is dropped and is
    // load()'s "File not found"; a file that does not load is its load error, and nothing is kept.
    std::shared_ptr<const Agent> load(const std::filesystem::path& file) const;

    std::size_t size() const;
    std::size_t capacity() const { return capacity_; }
    // How many load() calls were answered from the cache, and how many loaded the file.
    std::size_t hits() const;
    std::size_t misses() const;

  private:
    struct Entry {
        FileStamp stamp;
        std::shared_ptr<const Agent> agent;
        std::list<std::string>::iterator recency;  // its place in recency_ (front: newest)
    };

    LoadOptions options_;
    std::size_t capacity_;
    mutable std::mutex mutex_;
    mutable std::list<std::string> recency_;
    mutable std::unordered_map<std::string, Entry> entries_;
    mutable std::size_t hits_ = 0, misses_ = 0;
};

}  // namespace cmfpipe::prompty
