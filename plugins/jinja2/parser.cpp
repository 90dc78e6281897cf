// compile(): source -> normalised text -> tokens -> AST, with the lexer set up for the profile
// (chat templates trim and lstrip blocks and drop the trailing newline, as transformers does).
#include "parser.hpp"

namespace cmfpipe::jinja2 {

std::shared_ptr<const Template> compile(std::string_view source, const CompileOptions& options) {
    auto tpl = std::make_shared<Template>();
    tpl->name = options.name;
    tpl->profile = options.profile;
    LexerOptions lex;
    bool chat = options.profile == Profile::ChatTemplate;
    lex.trim_blocks = chat;
    lex.lstrip_blocks = chat;
    lex.keep_trailing_newline = !chat;
    tpl->source = normalize_source(source, lex.keep_trailing_newline);
    Parser(tokenize(tpl->source, lex), *tpl, options).run();
    fold_constant_names(*tpl);
    return tpl;
}

}  // namespace cmfpipe::jinja2
