#include "includes.hpp"

#include "cmfpipe/input_files.hpp"
#include "cmfpipe/limits.hpp"
#include "cmfpipe/path_roots.hpp"

namespace cmfpipe::prapti {
namespace {

namespace fs = std::filesystem;

std::string quoted(const std::string& path) {
    return "%include \"" + path + "\"";
}

}  // namespace

Includes::Includes(const fs::path& document, std::string document_name,
                   const std::vector<fs::path>& allowed_roots)
    : document_name_(std::move(document_name)) {
    if (document.empty()) return;
    // The real file's folder: a symlink to the document does not lend it the link's folder.
    document_ = resolve_path(fs::absolute(document));
    roots_.push_back(document_.parent_path());
    for (const fs::path& root : allowed_roots) roots_.push_back(resolve_path(fs::absolute(root)));
}

IncludedFile Includes::read(const std::string& requested, const fs::path& from,
                            const std::string& from_name, const SourceLocation& where) {
    if (document_.empty()) {
        throw ValueError(quoted(requested) +
                             ": includes need the document's file, and the host gave none "
                             "(prapti parser option 'file')",
                         where);
    }
    const fs::path given(requested);
    IncludedFile file;
    file.path = resolve_path(given.is_absolute() ? given : from.parent_path() / given);
    file.name = given.is_absolute()
                    ? requested
                    : (fs::path(from_name).parent_path() / given).lexically_normal().string();
    bool allowed = false;
    for (const fs::path& root : roots_) allowed = allowed || path_is_within(root, file.path);
    if (!allowed) {
        std::string roots = roots_.front().string();
        for (std::size_t i = 1; i < roots_.size(); ++i) roots += ", " + roots_[i].string();
        throw ValueError(quoted(requested) + ": " + file.path.string() +
                             " is outside the allowed roots (" + roots +
                             "); cmfpipe run --allow-root DIR widens them",
                         where);
    }
    std::error_code ec;
    if (!fs::exists(file.path, ec)) {
        throw ValueError(quoted(requested) + ": no such file (" + file.path.string() + ")", where);
    }
    if (!fs::is_regular_file(file.path, ec)) {
        throw ValueError(quoted(requested) + ": not a file (" + file.path.string() + ")", where);
    }
    file.text = read_text_file(file.path);
    total_bytes_ += file.text.size();
    check_input_size(total_bytes_, where.to_string() + ": " + quoted(requested) +
                                       " (the included files together)");
    return file;
}

Includes::Nesting::Nesting(Includes& includes, const IncludedFile& file,
                           const std::string& requested, const SourceLocation& where)
    : includes_(includes) {
    bool cycle = file.path == includes.document_;
    for (const IncludedFile& open : includes.open_) cycle = cycle || open.path == file.path;
    if (cycle) {
        std::string chain = includes.document_name_;
        for (const IncludedFile& open : includes.open_) chain += " includes " + open.name;
        throw ValueError(
            quoted(requested) + ": an include cycle (" + chain + " includes " + file.name + ")",
            where);
    }
    if (includes.open_.size() >= static_cast<std::size_t>(max_file_nesting)) {
        throw ValueError(quoted(requested) + ": includes nest deeper than " +
                             std::to_string(max_file_nesting) + " files",
                         where);
    }
    includes.open_.push_back(IncludedFile{file.path, file.name, {}});
}

Includes::Nesting::~Nesting() {
    includes_.open_.pop_back();
}

}  // namespace cmfpipe::prapti
