// renderer kind "dollar": shell-style substitution for prompts that need no logic.
//
//   ${name}            the input "name" (strings verbatim, other values as JSON)
//   ${user.address.city}  a dotted path into objects (and list indices: ${items.0})
//   ${name:-fallback}  the fallback text when the input is missing or null
//   $$                 a literal "$"
//
// Option "upper": true upper-cases the whole result (ASCII letters), the kind of renderer that
// rewrites every byte of the text it is given. It still works in strict mode: the host hands it
// tokens in place of the author's role markers and puts the markers back afterwards (see
// cmfpipe/renderer.hpp); tokens hold no letters, so upper-casing leaves them intact.
//
// A missing input without a fallback, or an unterminated "${", is a ValueError that says
// where (template name, line, column), never a silent empty string.
#include <cctype>
#include <string>
#include <string_view>

#include "cmfpipe/errors.hpp"
#include "cmfpipe/plugin.hpp"

namespace {

using cmfpipe::Json;

class DollarRenderer final : public cmfpipe::Renderer {
  public:
    std::string render(std::string_view text, const Json& inputs,
                       const Json& options) const override {
        const std::string name = options.value("template_name", std::string("<template>"));
        std::string out;
        out.reserve(text.size());
        int line = 1, column = 1;
        for (std::size_t i = 0; i < text.size();) {
            if (text[i] == '$' && i + 1 < text.size() && text[i + 1] == '$') {
                out += '$';
                i += 2, column += 2;
            } else if (text[i] == '$' && i + 1 < text.size() && text[i + 1] == '{') {
                auto close = text.find('}', i + 2);
                if (close == std::string_view::npos) {
                    throw cmfpipe::ValueError("unterminated '${'", {name, line, column});
                }
                out += substitute(text.substr(i + 2, close - i - 2), inputs, {name, line, column});
                column += static_cast<int>(close + 1 - i);
                i = close + 1;
            } else {
                if (text[i] == '\n')
                    ++line, column = 1;
                else
                    ++column;
                out += text[i++];
            }
        }
        if (options.value("upper", false)) {
            for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        }
        return out;
    }

  private:
    static std::string substitute(std::string_view expression, const Json& inputs,
                                  const cmfpipe::SourceLocation& where) {
        std::string_view path = expression;
        std::string_view fallback;
        bool has_fallback = false;
        if (auto sep = expression.find(":-"); sep != std::string_view::npos) {
            path = expression.substr(0, sep);
            fallback = expression.substr(sep + 2);
            has_fallback = true;
        }
        const Json* value = lookup(inputs, path);
        if (value == nullptr || value->is_null()) {
            if (has_fallback) return std::string(fallback);
            throw cmfpipe::ValueError("no input '" + std::string(path) + "' and no fallback",
                                      where);
        }
        return value->is_string() ? value->get<std::string>() : value->dump();
    }

    static const Json* lookup(const Json& root, std::string_view path) {
        const Json* node = &root;
        while (!path.empty()) {
            auto dot = path.find('.');
            std::string key(path.substr(0, dot));
            if (node->is_object()) {
                auto found = node->find(key);
                if (found == node->end()) return nullptr;
                node = &*found;
            } else if (node->is_array() && !key.empty() &&
                       key.find_first_not_of("0123456789") == std::string::npos &&
                       std::stoul(key) < node->size()) {
                node = &(*node)[std::stoul(key)];
            } else {
                return nullptr;
            }
            path = dot == std::string_view::npos ? std::string_view{} : path.substr(dot + 1);
        }
        return node;
    }
};

void register_kinds(cmfpipe::Registrar& registrar) {
    registrar.add_renderer("dollar",
                           [](const Json&) { return std::make_unique<DollarRenderer>(); });
}

}  // namespace

CMFPIPE_PLUGIN(dollar, "1.0.0", register_kinds)
