#pragma once
// Splitting a .prompty file into YAML frontmatter and markdown body (Prompty spec §2.2).
#include <optional>
#include <string>
#include <string_view>

namespace cmfpipe::prompty {

struct SplitDocument {
    // The text between the delimiters (nullopt when the file has no frontmatter at all).
    std::optional<std::string> frontmatter;
    // Where `frontmatter` starts in the file: 1-based line and column of its first character
    // (right after the opening delimiter), so YAML marks can be turned into file positions.
    int frontmatter_line = 1;
    int frontmatter_column = 1;
    // The body with surrounding whitespace removed (as the reference runtimes do), and the
    // 1-based line of its first character in the file.
    std::string body;
    int body_line = 1;
};

// A file that starts (after optional whitespace) with `---` or `+++` has frontmatter, closed by
// the next line that starts with `---` or `+++`. No closing delimiter: ValueError at `source`.
SplitDocument split_frontmatter(std::string_view text, const std::string& source);

}  // namespace cmfpipe::prompty
