// Formats an engine failure the way users need to read it:
//   chat.jinja:3:12: UndefinedError: 'functions' is undefined
//       {{ functions | tojson }}
//          ^
#include "template_error.hpp"

#include "cmfpipe/errors.hpp"
#include "template.hpp"

namespace cmfpipe::jinja2 {

void raise_as_cmfpipe_error(const Failure& f, const std::string& template_name,
                            std::string_view source) {
    std::string name = template_name;
    if (f.where) {
        name = f.where->name;
        source = f.where->source;
    }
    std::string message = f.type + ": " + f.text;
    if (f.line > 0) {
        std::size_t start = 0;
        for (int line = 1; line < f.line && start != std::string_view::npos; ++line) {
            start = source.find('\n', start);
            if (start != std::string_view::npos) ++start;
        }
        if (start != std::string_view::npos && start <= source.size()) {
            std::size_t end = source.find('\n', start);
            std::string_view text = source.substr(
                start, end == std::string_view::npos ? std::string_view::npos : end - start);
            if (text.size() > 200) text = text.substr(0, 200);
            message += "\n    ";
            message += text;
            message += "\n    ";
            std::size_t col = f.column > 0 ? static_cast<std::size_t>(f.column - 1) : 0;
            for (std::size_t i = 0; i < col && i < text.size(); ++i)
                message += text[i] == '\t' ? '\t' : ' ';
            message += '^';
        }
    }
    SourceLocation where{name, f.line, f.column};
    if (f.limit) throw LimitExceeded(message, where);
    throw ValueError(message, where);
}

}  // namespace cmfpipe::jinja2
