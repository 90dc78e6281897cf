// The served prompts of host/prompt_catalog.hpp: one stat() a request tells a changed file.
#include "cmfpipe/core/host/prompt_catalog.hpp"

#include <algorithm>
#include <mutex>

namespace cmfpipe::host {
namespace {

bool plain_name(std::string_view name) {
    if (name.empty() || name.size() > 200 || name.front() == '.') return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '.' || c == '_' || c == '-';
    });
}

constexpr std::string_view extension = ".prompty";

}  // namespace

const char* NotFound::kind() const noexcept {
    return "NotFound";
}

PromptCatalog::PromptCatalog(std::filesystem::path directory,
                             std::shared_ptr<const Service> service, prompty::LoadOptions options)
    : directory_(std::move(directory)), service_(std::move(service)), options_(std::move(options)) {
    options_.trace = {};
    std::error_code ec;
    if (!std::filesystem::is_directory(directory_, ec)) {
        throw ValueError("--prompts: not a directory", {directory_.string()});
    }
    std::vector<std::filesystem::path> files;
    for (const auto& item : std::filesystem::directory_iterator(directory_, ec)) {
        const auto& path = item.path();
        if (path.extension() == extension && plain_name(path.stem().string()))
            files.push_back(path);
    }
    if (ec) throw ValueError("cannot list the folder: " + ec.message(), {directory_.string()});
    std::sort(files.begin(), files.end());
    for (const auto& file : files) (void)get(file.stem().string());
}

std::shared_ptr<const Prompt> PromptCatalog::get(std::string_view name) const {
    if (!plain_name(name)) throw NotFound("no prompt named '" + std::string(name) + "'");
    {
        // The common case, a prompt loaded before whose file is unchanged: its path is kept, so
        // the one stat() is all this costs.
        std::shared_lock lock(mutex_);
        if (auto found = entries_.find(name); found != entries_.end()) {
            if (stamp_of(found->second.file) == found->second.stamp) return found->second.prompt;
        }
    }
    const std::string key(name);
    const std::filesystem::path file = directory_ / (key + std::string(extension));
    const std::optional<FileStamp> stamp = stamp_of(file);
    if (!stamp) {
        std::unique_lock lock(mutex_);
        entries_.erase(key);
        throw NotFound("no prompt named '" + key + "' in " + directory_.string());
    }
    {
        std::shared_lock lock(mutex_);
        auto found = entries_.find(key);
        if (found != entries_.end() && found->second.stamp == *stamp) return found->second.prompt;
    }
    // Loaded outside the lock: requests for other prompts go on meanwhile. Two requests that both
    // saw the change both load it; the last one stored wins, and both answers are the new file.
    std::shared_ptr<const Prompt> prompt = load(key, file);
    std::unique_lock lock(mutex_);
    entries_[key] = Entry{*stamp, file, prompt};
    return prompt;
}

std::shared_ptr<const Prompt> PromptCatalog::load(const std::string& name,
                                                  const std::filesystem::path& file) const {
    return std::make_shared<const Prompt>(
        service_->make_prompt(name, prompty::load(file, options_)));
}

std::vector<std::string> PromptCatalog::names() const {
    std::shared_lock lock(mutex_);
    std::vector<std::string> names;
    for (const auto& [name, entry] : entries_) names.push_back(name);
    return names;
}

}  // namespace cmfpipe::host
