#pragma once
// Template source -> tokens, with Jinja's whitespace control: `-` modifiers, trim_blocks,
// lstrip_blocks, and {% raw %} blocks. Comments are dropped here.
#include <string>
#include <string_view>
#include <vector>

namespace cmfpipe::jinja2 {

enum class Tok { Data, VarBegin, VarEnd, BlockBegin, BlockEnd, Name, String, Int, Float, Op, End };

struct Token {
    Tok type;
    std::string text;  // data text, name, decoded string literal, number text or operator
    int line = 0;
    int column = 0;
};

struct LexerOptions {
    bool trim_blocks = false;
    bool lstrip_blocks = false;
    bool keep_trailing_newline = true;
};

// Newlines are normalised to "\n" first (as Jinja does). Throws Failure(TemplateSyntaxError).
std::vector<Token> tokenize(std::string_view source, const LexerOptions& options);

// Jinja's source normalisation: \r\n and \r become \n; one trailing newline is dropped unless kept.
std::string normalize_source(std::string_view source, bool keep_trailing_newline);

}  // namespace cmfpipe::jinja2
