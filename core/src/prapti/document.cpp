// load: configuration files and the document through the prapti parser (document form), their
// configuration lines -> the agent's model, their sent sections -> the conversation.
#include "cmfpipe/core/prapti/document.hpp"

#include <algorithm>

#include "cmfpipe/core/files.hpp"
#include "cmfpipe/path_roots.hpp"
#include "request_settings.hpp"

namespace cmfpipe::prapti {
namespace {

namespace fs = std::filesystem;

constexpr const char* config_file_name = ".prapticonfig.md";

// One file's sections, as the parser returns them with option "document".
struct ParsedFile {
    fs::path path;
    std::vector<cmf::Message> sections;
};

ParsedFile parse_file(const Parser& parser, const fs::path& file, const LoadOptions& options) {
    const std::string text = read_text_file(file);
    Json roots = Json::array();
    for (const fs::path& root : options.allowed_roots) roots.push_back(root.string());
    const Json parse_options = {{"template_name", file.string()},
                                {"document", true},
                                {"file", file.string()},
                                {"allowed_roots", std::move(roots)}};
    return {file, parser.parse(text, parse_options, RequestContext{})};
}

bool sets_config_root(const ParsedFile& file) {
    for (const cmf::Message& section : file.sections) {
        for (const Json& line : section.custom()->at("prapti").at("configuration")) {
            if (line.value("key", "") == "config_root" && line.at("value") == Json(true))
                return true;
        }
    }
    return false;
}

// .prapticonfig.md files from the document's (real) folder up, to the first that sets
// config_root = true; returned top-down, the order they apply in.
std::vector<ParsedFile> config_files(const Parser& parser, const fs::path& document,
                                     const LoadOptions& options) {
    std::vector<ParsedFile> found;
    const fs::path real = resolve_path(fs::absolute(document));
    for (fs::path folder = real.parent_path();; folder = folder.parent_path()) {
        const fs::path candidate = folder / config_file_name;
        std::error_code ec;
        if (candidate != real && fs::is_regular_file(candidate, ec)) {
            found.push_back(parse_file(parser, candidate, options));
            if (sets_config_root(found.back())) break;
        }
        if (folder == folder.parent_path()) break;
    }
    std::reverse(found.begin(), found.end());
    return found;
}

// A sent section without the parser's notes about it: what the pipeline and the adapter get.
cmf::Message without_document_notes(const cmf::Message& message) {
    Json custom = *message.custom();
    custom.erase("prapti");
    if (custom.empty()) return message.with_custom(nullptr);
    return message.with_custom(std::make_shared<const Json>(std::move(custom)));
}

void add_file(const ParsedFile& file, RequestSettings& settings, Document& document) {
    for (const cmf::Message& section : file.sections) {
        const Json& notes = section.custom()->at("prapti");
        for (const Json& line : notes.at("configuration")) settings.apply(line);
        if (notes.at("send").get<bool>()) {
            document.conversation.push_back(without_document_notes(section));
            continue;
        }
        const std::string role = notes.at("role").get<std::string>();
        if (role.front() != '_' && !cmf::enum_from_string<cmf::Role>(role)) {
            throw ValueError("role '" + role + "' cannot be sent to a model (roles: " +
                                 std::string(cmf::enum_spellings<cmf::Role>()) +
                                 "; a hidden role starts with '_')",
                             {notes.at("file").get<std::string>(), notes.at("line").get<int>(),
                              notes.at("column").get<int>()});
        }
    }
}

Document load_untraced(const Registry& registry, const fs::path& file, const LoadOptions& options) {
    const std::shared_ptr<const Parser> parser = registry.make_parser("prapti");
    std::vector<ParsedFile> files;
    if (options.config_files) files = config_files(*parser, file, options);
    files.push_back(parse_file(*parser, file, options));

    Document document;
    RequestSettings settings;
    for (const ParsedFile& parsed : files) {
        if (parsed.path != file) {
            document.config_files.push_back(parsed.path);
            // Built in steps: g++ 12 at -O3 takes the nested braces for a read of an
            // uninitialised string (-Wmaybe-uninitialized, an error under -Werror).
            Notice notice;
            notice.at.file = parsed.path.string();
            notice.message =
                "read as configuration before the document (--no-default-config skips it)";
            settings.notices().push_back(std::move(notice));
        }
        add_file(parsed, settings, document);
    }
    document.notices = std::move(settings.notices());
    prompty::Agent& agent = document.agent;
    agent.name = file.stem().string();
    agent.source = file.string();
    agent.model = settings.model();
    agent.template_config.format_kind = "none";
    agent.template_config.parser_kind = "prapti";
    return document;
}

}  // namespace

Document load(const Registry& registry, const fs::path& file, const LoadOptions& options) {
    tracing::Span span = options.trace.start("load");
    if (span.active()) {
        span.emit("signature", "cmfpipe.prapti.load");
        span.emit("inputs", {{"path", file.string()}});
    }
    try {
        Document document = load_untraced(registry, file, options);
        if (span.active()) {
            Json config_files = Json::array();
            for (const fs::path& path : document.config_files)
                config_files.push_back(path.string());
            span.emit("result",
                      {{"name", document.agent.name},
                       {"config_files", std::move(config_files)},
                       {"model", document.agent.model ? prompty::to_json(*document.agent.model)
                                                      : Json(nullptr)},
                       {"messages", document.conversation.size()}});
        }
        return document;
    } catch (const Error& e) {
        span.emit_error(e.kind(), e.what());
        throw;
    }
}

}  // namespace cmfpipe::prapti
