#pragma once
// A template's names and their slots. Looked up once per input key on every render, so it is a
// flat open-addressed table: one hash and, usually, one probe into contiguous memory (a
// std::unordered_map of this size scans its node list and chases a pointer per name).
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace cmfpipe::jinja2 {

class SymbolTable {
  public:
    // The slot of `name`, adding it if new.
    int add(std::string_view name) {
        std::uint32_t h = hash(name);
        if (int s = find(name, h); s >= 0) return s;
        int slot = static_cast<int>(names_.size());
        names_.emplace_back(name);
        hashes_.push_back(h);
        if (names_.size() * 2 > index_.size())
            rebuild(index_.empty() ? 16 : index_.size() * 2);
        else
            place(slot);
        return slot;
    }
    // The slot of `name`, or -1.
    int slot_of(std::string_view name) const { return find(name, hash(name)); }
    const std::string& operator[](std::size_t slot) const { return names_[slot]; }
    std::size_t size() const { return names_.size(); }

  private:
    int find(std::string_view name, std::uint32_t h) const {
        if (index_.empty()) return -1;
        std::size_t mask = index_.size() - 1;
        for (std::size_t i = h & mask;; i = (i + 1) & mask) {
            int s = index_[i];
            if (s < 0) return -1;
            if (hashes_[static_cast<std::size_t>(s)] == h &&
                names_[static_cast<std::size_t>(s)] == name)
                return s;
        }
    }
    // Eight bytes at a time: names are identifiers, and input keys like add_generation_prompt
    // are looked up on every render.
    static std::uint32_t hash(std::string_view s) {
        std::uint64_t h = s.size() * 0x9E3779B97F4A7C15ull;
        std::size_t i = 0;
        for (; i + 8 <= s.size(); i += 8) {
            std::uint64_t word;
            std::memcpy(&word, s.data() + i, 8);
            h = (h ^ word) * 0xFF51AFD7ED558CCDull;
        }
        std::uint64_t tail = 0;
        for (std::size_t k = 0; i + k < s.size(); ++k)
            tail |= std::uint64_t(static_cast<unsigned char>(s[i + k])) << (8 * k);
        h = (h ^ tail) * 0xC4CEB9FE1A85EC53ull;
        return static_cast<std::uint32_t>(h ^ (h >> 29));
    }
    void place(int slot) {
        std::size_t mask = index_.size() - 1;
        std::size_t i = hashes_[static_cast<std::size_t>(slot)] & mask;
        while (index_[i] >= 0) i = (i + 1) & mask;
        index_[i] = slot;
    }
    void rebuild(std::size_t capacity) {
        index_.assign(capacity, -1);
        for (std::size_t s = 0; s < names_.size(); ++s) place(static_cast<int>(s));
    }

    std::vector<std::string> names_;     // slot -> name
    std::vector<std::uint32_t> hashes_;  // slot -> hash of its name
    std::vector<int> index_;             // open addressing, power-of-two size, -1 = empty
};

}  // namespace cmfpipe::jinja2
