#pragma once
// The .prompty files of one folder, served by name (`cmfpipe serve --prompts DIR`): each is
// loaded once and made into a Prompt (host/service.hpp); a file that changed (modification time,
// size or inode) is loaded again on its next use, a new file is found on its first use, a removed
// one is gone. Thread-safe.
#include <filesystem>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "cmfpipe/core/file_stamp.hpp"
#include "cmfpipe/core/host/service.hpp"
#include "cmfpipe/core/prompty/loader.hpp"
#include "cmfpipe/errors.hpp"

namespace cmfpipe::host {

// No prompt of that name (HTTP 404).
class NotFound : public Error {
  public:
    using Error::Error;
    const char* kind() const noexcept override;
};

class PromptCatalog {
  public:
    // Loads every DIR/*.prompty now: a file that does not load is the error (file:line:col), so a
    // server never starts with a broken prompt. `options.trace` is not used (each load is quiet).
    PromptCatalog(std::filesystem::path directory, std::shared_ptr<const Service> service,
                  prompty::LoadOptions options = {});

    // The prompt NAME (DIR/NAME.prompty), reloaded first when its file changed. NotFound when
    // there is no such file or the name is not a plain file name (letters, digits, '.', '_', '-';
    // not starting with '.'); a file that no longer loads: its load error.
    std::shared_ptr<const Prompt> get(std::string_view name) const;

    // The names loaded so far, sorted.
    std::vector<std::string> names() const;

    const std::filesystem::path& directory() const { return directory_; }

  private:
    struct Entry {
        FileStamp stamp;
        std::filesystem::path file;
        std::shared_ptr<const Prompt> prompt;
    };
    std::shared_ptr<const Prompt> load(const std::string& name,
                                       const std::filesystem::path& file) const;

    std::filesystem::path directory_;
    std::shared_ptr<const Service> service_;
    prompty::LoadOptions options_;
    mutable std::shared_mutex mutex_;
    mutable std::map<std::string, Entry, std::less<>> entries_;
};

}  // namespace cmfpipe::host
