#include "cmfpipe/path_roots.hpp"

namespace cmfpipe {

namespace fs = std::filesystem;

fs::path resolve_path(const fs::path& path) {
    std::error_code ec;
    fs::path out = fs::weakly_canonical(path, ec);
    return ec ? path.lexically_normal() : out;
}

bool path_is_within(const fs::path& root, const fs::path& target) {
    auto r = root.begin(), t = target.begin();
    for (; r != root.end(); ++r, ++t) {
        if (r->empty()) continue;  // trailing separator
        if (t == target.end() || *r != *t) return false;
    }
    return true;
}

}  // namespace cmfpipe
