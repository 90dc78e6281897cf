// The "# Tools" section (see tools_section.hpp).
#include "tools_section.hpp"

#include "typescript_schema.hpp"

namespace cmfpipe::harmony {
namespace {

// The lines of a text; a final newline does not start another line, "\r\n" counts as "\n".
std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t nl = text.find('\n', start);
        std::size_t end = nl == std::string::npos ? text.size() : nl;
        std::string line = text.substr(start, end - start);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        lines.push_back(std::move(line));
        if (nl == std::string::npos) break;
        start = nl + 1;
    }
    return lines;
}

std::string join(const std::vector<std::string>& parts, const std::string& separator) {
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? separator : "") + parts[i];
    return out;
}

std::string namespace_section(const ToolNamespace& ns) {
    std::vector<std::string> lines = {"## " + ns.name + "\n"};
    const bool has_functions = !ns.tools.empty();
    for (const auto& line : lines_of(ns.description))
        lines.push_back(has_functions ? "// " + line : line);
    if (has_functions) {
        lines.push_back("namespace " + ns.name + " {\n");
        for (const auto& tool : ns.tools) {
            for (const auto& line : lines_of(tool.description)) lines.push_back("// " + line);
            if (tool.parameters)
                lines.push_back("type " + tool.name +
                                " = (_: " + typescript_type(*tool.parameters, "") + ") => any;\n");
            else
                lines.push_back("type " + tool.name + " = () => any;\n");
        }
        lines.push_back("} // namespace " + ns.name);
    }
    return join(lines, "\n");
}

}  // namespace

std::string tools_section(const std::vector<ToolNamespace>& namespaces) {
    std::vector<std::string> sections = {"# Tools"};
    for (const auto& ns : namespaces) sections.push_back(namespace_section(ns));
    return join(sections, "\n\n");
}

}  // namespace cmfpipe::harmony
