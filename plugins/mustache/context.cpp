#include "context.hpp"

namespace cmfpipe::mustache {

Resolved ContextStack::lookup(const std::vector<std::string>& parts, std::string_view full) const {
    if (parts.empty()) return {frames_.back(), nullptr};  // "." is the top frame itself
    for (auto frame = frames_.rbegin(); frame != frames_.rend(); ++frame) {
        const Json& f = **frame;
        if (!f.is_object()) continue;
        auto found = f.find(parts.front());
        if (found == f.end()) continue;
        // Found the first part: the rest resolves here or nowhere (no falling back down the stack).
        const Json* value = &*found;
        for (std::size_t i = 1; i < parts.size(); ++i) {
            if (!value->is_object()) return {};
            auto next = value->find(parts[i]);
            if (next == value->end()) return {};
            value = &*next;
        }
        return {value, nullptr};
    }
    if (lambdas_) {
        if (auto it = lambdas_->find(full); it != lambdas_->end()) return {nullptr, &it->second};
    }
    return {};
}

}  // namespace cmfpipe::mustache
