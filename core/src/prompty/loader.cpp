// load (spec §4.2): split -> YAML (with positions) -> references -> typed Agent, in a `load` span.
#include "cmfpipe/core/prompty/loader.hpp"

#include <cctype>
#include <functional>

#include "cmfpipe/core/files.hpp"
#include "cmfpipe/core/prompty/frontmatter.hpp"
#include "cmfpipe/errors.hpp"

namespace cmfpipe::prompty {
namespace {

// Where ${file:} references start from; asked only when the frontmatter holds one (finding the
// real folder of a file costs a system call per path component).
using BaseDirectory = std::function<std::filesystem::path()>;

// A string value, at any depth, that starts "${file:" in any case (a superset of what
// resolve_references reads as a file reference).
bool holds_file_reference(const Json& value) {
    if (value.is_string()) {
        const std::string& text = value.get_ref<const std::string&>();
        if (text.size() < 7 || text.compare(0, 2, "${") != 0 || text[6] != ':') return false;
        for (std::size_t i = 0; i < 4; ++i) {
            if (std::tolower(static_cast<unsigned char>(text[2 + i])) != "file"[i]) return false;
        }
        return true;
    }
    if (value.is_structured()) {
        for (const auto& item : value) {
            if (holds_file_reference(item)) return true;
        }
    }
    return false;
}

Agent load_untraced(std::string_view text, const std::string& source,
                    const BaseDirectory& base_directory, const LoadOptions& options) {
    SplitDocument doc = split_frontmatter(text, source);
    // Nothing to render would still become one empty system message sent to a model.
    if (doc.body.empty()) {
        throw ValueError(doc.frontmatter ? "No template: nothing follows the frontmatter"
                                         : "Empty .prompty: no frontmatter and no template",
                         {source});
    }
    SourceMap map(source);
    Json frontmatter = Json::object();
    std::vector<std::string> environment_values;
    if (doc.frontmatter) {
        frontmatter = parse_yaml(*doc.frontmatter, source, doc.frontmatter_line,
                                 doc.frontmatter_column, &map);
        if (frontmatter.is_null()) frontmatter = Json::object();  // "---\n---": empty frontmatter
        if (!frontmatter.is_object()) {
            throw ValueError("Frontmatter must be a YAML mapping", map.at(""));
        }
        ReferenceOptions refs{
            options.environment, options.allowed_env,
            holds_file_reference(frontmatter) ? base_directory() : std::filesystem::path(),
            options.allowed_roots};
        environment_values = resolve_references(frontmatter, refs, map);
        // Before anything of this agent reaches a trace (the load span's result included).
        options.trace.redact_values(environment_values);
    }
    Agent agent = agent_from_json(frontmatter, std::move(doc.body), map);
    agent.body_line = doc.body_line;
    agent.environment_values = std::move(environment_values);
    return agent;
}

Json summary(const Agent& agent) {
    Json out = {{"agent_name", agent.name}};
    if (agent.model) out["model"] = agent.model->id;
    out["inputs"] = agent.inputs ? agent.inputs->size() : 0;
    out["template"] = to_json(agent.template_config);
    return out;
}

template <class Load>
Agent traced(const LoadOptions& options, const std::string& path, Load&& load) {
    tracing::Span span = options.trace.start("load");
    if (span.active()) {
        span.emit("signature", "cmfpipe.prompty.load");
        span.emit("inputs", {{"path", path}});
    }
    try {
        Agent agent = load();
        if (span.active()) span.emit("result", summary(agent));
        return agent;
    } catch (const Error& e) {
        span.emit_error(e.kind(), e.what());
        throw;
    }
}

}  // namespace

Agent load(const std::filesystem::path& file, const LoadOptions& options) {
    return traced(options, file.string(), [&] {
        std::error_code ec;
        if (!std::filesystem::is_regular_file(file, ec)) {
            throw ValueError("File not found: " + file.string(), {file.string()});
        }
        // ${file:} is confined to the folder of the real file: a symlinked .prompty must not
        // reach into the folder of its link.
        return load_untraced(
            read_text_file(file), file.string(),
            [&] {
                std::error_code failed;
                std::filesystem::path real = std::filesystem::canonical(file, failed);
                if (failed) real = std::filesystem::absolute(file);
                return real.parent_path();
            },
            options);
    });
}

Agent load_text(std::string_view text, const std::string& source,
                const std::filesystem::path& base_directory, const LoadOptions& options) {
    return traced(options, source, [&] {
        return load_untraced(
            text, source, [&] { return base_directory; }, options);
    });
}

}  // namespace cmfpipe::prompty
