#pragma once
// Compiled templates by content (text and starting delimiters), least recently used evicted
// first. Shared by every render of one Engine; lookups take one short lock, compiling does not
// hold it.
#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "lexer.hpp"
#include "node.hpp"

namespace cmfpipe::mustache {

class TemplateCache {
  public:
    explicit TemplateCache(std::size_t capacity) : capacity_(capacity) {}

    // The compiled template for `text`, compiling (and caching) it on a miss. Syntax errors
    // throw and cache nothing; `origin` only names the text in those errors. A template nested
    // deeper than `max_nesting` is LimitExceeded, cached or not.
    std::shared_ptr<const Template> get(std::string_view text, const Delimiters& delimiters,
                                        const Origin& origin, int max_nesting);

    std::size_t size() const;

  private:
    struct Entry {
        std::string open, close;
        std::shared_ptr<const Template> compiled;  // holds the text too
    };
    // Views into an Entry (list nodes never move) and its template's source, so nothing stores a
    // second copy of the text.
    struct Key {
        std::string_view open, close, text;
        bool operator==(const Key&) const = default;
    };
    struct KeyHash {
        std::size_t operator()(const Key& k) const noexcept;
    };

    std::size_t capacity_;
    mutable std::mutex mutex_;
    std::list<Entry> recent_;  // most recently used first
    std::unordered_map<Key, std::list<Entry>::iterator, KeyHash> index_;
};

}  // namespace cmfpipe::mustache
