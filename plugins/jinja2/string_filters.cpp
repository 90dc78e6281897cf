// Builtin string filters: case, trimming, escaping, replacing, padding, wrapping, formatting.
#include <cstdio>

#include "filter_args.hpp"
#include "methods.hpp"

namespace cmfpipe::jinja2 {
namespace {

Value f_upper(Evaluator&, const Value& s, Args&) {
    return Value::string(ascii_upper(soft_str(s)));
}
Value f_lower(Evaluator&, const Value& s, Args&) {
    return Value::string(ascii_lower(soft_str(s)));
}
Value f_capitalize(Evaluator&, const Value& s, Args&) {
    return Value::string(capitalize(soft_str(s)));
}
Value f_title(Evaluator&, const Value& s, Args&) {
    return Value::string(jinja_title(soft_str(s)));
}

Value f_trim(Evaluator&, const Value& s, Args& a) {
    const Value* chars = arg(a, 0, "chars");
    if (chars && !chars->is_none())
        return Value::string(strip_chars(soft_str(s), soft_str(*chars), true, true));
    if (s.is_string() && !s.is_markup()) return strip_space_of(s, true, true);
    return Value::string(std::string(strip_space(soft_str(s), true, true)));
}

Value f_string(Evaluator&, const Value& s, Args&) {
    if (s.is_string()) return s;
    return Value::string(soft_str(s));
}

Value f_safe(Evaluator&, const Value& s, Args&) {
    return s.is_markup() ? s : Value::markup(soft_str(s));
}

Value f_escape(Evaluator& ev, const Value& s, Args&) {
    if (s.is_markup()) return s;
    std::string converted;
    const std::string& in = s.is_string() ? s.str() : (converted = soft_str(s));
    std::string out;
    out.reserve(in.size());
    append_html_escaped(out, in);
    ev.check_string(out.size());
    return Value::markup(std::move(out));
}

Value f_forceescape(Evaluator& ev, const Value& s, Args& a) {
    return f_escape(ev, Value::string(soft_str(s)), a);
}

Value f_replace(Evaluator& ev, const Value& s, Args& a) {
    const Value* old = arg(a, 0, "old");
    const Value* neu = arg(a, 1, "new");
    if (!old || !neu) throw Failure("TypeError", "do_replace() missing required arguments");
    std::int64_t count = int_param(a, 2, "count", -1);
    return str_result(ev, replace_all(soft_str(s), soft_str(*old), soft_str(*neu), count,
                                      ev.settings().limits.max_string_bytes));
}

Value f_center(Evaluator& ev, const Value& s, Args& a) {
    std::int64_t width = int_param(a, 0, "width", 80);
    if (width > 0) ev.check_string(static_cast<std::size_t>(width));
    return Value::string(pad(soft_str(s), width, " ", '^'));
}

Value f_indent(Evaluator& ev, const Value& s, Args& a) {
    const Value* w = arg(a, 0, "width");
    std::string indention;
    if (w && w->is_string()) {
        indention = w->str();
    } else {
        std::int64_t n = w ? int_param(a, 0, "width", 4) : 4;
        if (n > 0) ev.check_string(static_cast<std::size_t>(n));
        indention.assign(static_cast<std::size_t>(std::max<std::int64_t>(0, n)), ' ');
    }
    bool first = flag(a, 1, "first");
    bool blank = flag(a, 2, "blank");
    std::string text = soft_str(s) + "\n";
    auto lines = split_lines(text, false);
    std::string rv;
    if (blank) {
        for (std::size_t i = 0; i < lines.size(); ++i) {
            if (i) rv += "\n" + indention;
            rv += lines[i];
            ev.check_string(rv.size());
        }
    } else {
        rv = lines.empty() ? std::string() : lines[0];
        for (std::size_t i = 1; i < lines.size(); ++i) {
            rv += '\n';
            if (!lines[i].empty()) rv += indention;
            rv += lines[i];
            ev.check_string(rv.size());
        }
    }
    if (first) rv = indention + rv;
    return str_result(ev, std::move(rv));
}

Value f_truncate(Evaluator&, const Value& s, Args& a) {
    std::string str = soft_str(s);
    std::int64_t length = int_param(a, 0, "length", 255);
    bool killwords = flag(a, 1, "killwords");
    const Value* endv = arg(a, 2, "end");
    std::string end = endv ? soft_str(*endv) : "...";
    std::int64_t leeway = int_param(a, 3, "leeway", 5);
    auto chars = utf8_chars(str);
    std::int64_t end_len = static_cast<std::int64_t>(utf8_length(end));
    if (length < end_len)
        throw Failure("AssertionError", "expected length >= " + std::to_string(end_len) + ", got " +
                                            std::to_string(length));
    if (static_cast<std::int64_t>(chars.size()) <= length + leeway) return Value::string(str);
    std::string head;
    for (std::int64_t i = 0; i < length - end_len && i < static_cast<std::int64_t>(chars.size());
         ++i)
        head += chars[static_cast<std::size_t>(i)];
    if (killwords) return Value::string(head + end);
    auto parts = split_sep(head, " ", 1, true);
    return Value::string(parts[0] + end);
}

Value f_wordcount(Evaluator&, const Value& s, Args&) {
    std::string str = soft_str(s);
    std::int64_t n = 0;
    bool in_word = false;
    for (char c : str) {
        bool w = std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
                 static_cast<unsigned char>(c) >= 0x80;
        if (w && !in_word) ++n;
        in_word = w;
    }
    return Value::integer(n);
}

Value f_wordwrap(Evaluator& ev, const Value& s, Args& a) {
    std::int64_t width = int_param(a, 0, "width", 79);
    bool break_long = flag(a, 1, "break_long_words", true);
    const Value* wrapv = arg(a, 2, "wrapstring");
    std::string wrap = wrapv && !wrapv->is_none() ? soft_str(*wrapv) : "\n";
    std::string out;
    auto paragraphs = split_lines(soft_str(s), false);
    for (std::size_t p = 0; p < paragraphs.size(); ++p) {
        if (p) out += wrap;
        // greedy wrap on spaces, as textwrap does for plain text
        std::vector<std::string> lines;
        std::string line;
        for (auto& word : split_sep(paragraphs[p], " ", -1, false)) {
            if (word.empty()) continue;
            while (break_long && static_cast<std::int64_t>(utf8_length(word)) > width &&
                   width > 0) {
                if (!line.empty()) {
                    lines.push_back(line);
                    line.clear();
                }
                auto cs = utf8_chars(word);
                std::string head, tail;
                for (std::size_t i = 0; i < cs.size(); ++i)
                    (static_cast<std::int64_t>(i) < width ? head : tail) += cs[i];
                lines.push_back(head);
                word = tail;
            }
            if (word.empty()) continue;
            std::int64_t need = static_cast<std::int64_t>(
                utf8_length(line) + (line.empty() ? 0 : 1) + utf8_length(word));
            if (!line.empty() && need > width) {
                lines.push_back(line);
                line = word;
            } else {
                line += (line.empty() ? "" : " ") + word;
            }
        }
        if (!line.empty()) lines.push_back(line);
        for (std::size_t i = 0; i < lines.size(); ++i) out += (i ? wrap : "") + lines[i];
        ev.check_string(out.size());
    }
    return Value::string(std::move(out));
}

Value f_striptags(Evaluator&, const Value& s, Args&) {
    std::string in = soft_str(s), out;
    bool tag = false;
    for (char c : in) {
        if (c == '<')
            tag = true;
        else if (c == '>' && tag)
            tag = false;
        else if (!tag)
            out += c;
    }
    auto words = split_whitespace(out, -1, false);
    std::string joined;
    for (std::size_t i = 0; i < words.size(); ++i) joined += (i ? " " : "") + words[i];
    return Value::string(std::move(joined));
}

Value f_format(Evaluator& ev, const Value& s, Args& a) {
    if (!a.positional.empty() && !a.keyword.empty())
        throw Failure("FilterArgumentError",
                      "can't handle positional and keyword arguments at the same time");
    Value args;
    if (!a.keyword.empty()) {
        auto d = make_ref<Dict>();
        for (const auto& [k, v] : a.keyword) d->set(k, v);
        args = Value::dict(d);
    } else {
        args = Value::list(make_list(a.positional, List::Flavor::Tuple));
    }
    return str_result(ev, percent_format(ev, soft_str(s), args));
}

Value f_urlencode(Evaluator&, const Value& s, Args&) {
    auto quote = [](const std::string& in) {
        static const char* hex = "0123456789ABCDEF";
        std::string out;
        for (unsigned char c : in) {
            if (std::isalnum(c) || c == '_' || c == '.' || c == '-' || c == '~' || c == '/')
                out += static_cast<char>(c);
            else {
                out += '%';
                out += hex[c >> 4];
                out += hex[c & 15];
            }
        }
        return out;
    };
    if (s.is_dict()) {
        std::string out;
        for (const auto& [k, v] : s.dict().items)
            out += (out.empty() ? "" : "&") + quote(to_str(k)) + "=" + quote(to_str(v));
        return Value::string(out);
    }
    return Value::string(quote(soft_str(s)));
}

Value f_filesizeformat(Evaluator&, const Value& s, Args& a) {
    double bytes = s.is_string() ? std::strtod(s.str().c_str(), nullptr) : s.as_float();
    bool binary = flag(a, 0, "binary");
    double base = binary ? 1024 : 1000;
    static const char* dec[] = {"kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"};
    static const char* bin[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"};
    if (bytes == 1) return Value::string("1 Byte");
    if (bytes < base)
        return Value::string(std::to_string(static_cast<std::int64_t>(bytes)) + " Bytes");
    char buf[64];
    for (int i = 0; i < 8; ++i) {
        double unit = std::pow(base, i + 2);
        if (bytes < unit || i == 7) {
            std::snprintf(buf, sizeof buf, "%.1f %s", base * bytes / unit,
                          binary ? bin[i] : dec[i]);
            break;
        }
    }
    return Value::string(buf);
}

Value f_xmlattr(Evaluator& ev, const Value& v, Args& a) {
    bool autospace = flag(a, 0, "autospace", true);
    if (!v.is_dict()) throw Failure("TypeError", "xmlattr expects a mapping");
    std::string out;
    for (const auto& [k, val] : v.dict().items) {
        if (val.is_none() || val.is_undefined()) continue;
        Args none;
        out +=
            (out.empty() ? "" : " ") + to_str(k) + "=\"" + to_str(f_escape(ev, val, none)) + "\"";
    }
    if (autospace && !out.empty()) out = " " + out;
    return Value::string(std::move(out));
}

using Table = std::unordered_map<std::string_view, FilterFn>;

}  // namespace

void add_string_filters(FilterTable& table) {
    table.emplace("capitalize", f_capitalize);
    table.emplace("center", f_center);
    table.emplace("e", f_escape);
    table.emplace("escape", f_escape);
    table.emplace("filesizeformat", f_filesizeformat);
    table.emplace("forceescape", f_forceescape);
    table.emplace("format", f_format);
    table.emplace("indent", f_indent);
    table.emplace("lower", f_lower);
    table.emplace("replace", f_replace);
    table.emplace("safe", f_safe);
    table.emplace("string", f_string);
    table.emplace("striptags", f_striptags);
    table.emplace("title", f_title);
    table.emplace("trim", f_trim);
    table.emplace("truncate", f_truncate);
    table.emplace("upper", f_upper);
    table.emplace("urlencode", f_urlencode);
    table.emplace("wordcount", f_wordcount);
    table.emplace("wordwrap", f_wordwrap);
    table.emplace("xmlattr", f_xmlattr);
}

}  // namespace cmfpipe::jinja2
