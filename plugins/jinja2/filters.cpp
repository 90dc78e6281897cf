// Jinja's builtin filters with Python Jinja2 3.1 semantics. An undefined subject behaves as
// Jinja's Undefined does: "" as a string, empty as a sequence.
#include "filters.hpp"

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstdio>
#include <unordered_map>

#include "evaluator.hpp"
#include "failure.hpp"
#include "json.hpp"
#include "methods.hpp"
#include "text.hpp"

namespace cmfpipe::jinja2 {
namespace {

const Value* arg(const Args& a, std::size_t i, std::string_view name) {
    return a.get(i, name);
}

bool flag(const Args& a, std::size_t i, std::string_view name, bool def = false) {
    const Value* v = arg(a, i, name);
    return v ? truthy(*v) : def;
}

std::int64_t int_param(const Args& a, std::size_t i, std::string_view name, std::int64_t def) {
    const Value* v = arg(a, i, name);
    if (!v || v->is_none()) return def;
    if (v->is_int() || v->is_bool()) return v->as_int();
    if (v->is_float()) return static_cast<std::int64_t>(v->as_float());
    throw Failure("TypeError",
                  "'" + type_name(*v) + "' object cannot be interpreted as an integer");
}

std::string soft_str(const Value& v) {
    return to_str(v);
}

Value str_result(Evaluator& ev, std::string s) {
    return ev.make_string(std::move(s));
}

Value generator(std::vector<Value> items) {
    return Value::list(make_list(std::move(items), List::Flavor::Generator));
}

// make_attrgetter: "a.b.0" -> getitem chain, digit parts as integers.
std::vector<Value> attribute_parts(const Value& attribute) {
    std::vector<Value> parts;
    if (attribute.is_none() || attribute.is_undefined()) return parts;
    if (!attribute.is_string()) {
        parts.push_back(attribute);
        return parts;
    }
    for (const auto& p : split_sep(attribute.str(), ".", -1, false)) {
        bool digits = !p.empty() &&
                      std::all_of(p.begin(), p.end(), [](char c) { return c >= '0' && c <= '9'; });
        parts.push_back(digits ? Value::integer(std::stoll(p)) : Value::string(p));
    }
    return parts;
}

Value get_path(Evaluator& ev, Value item, const std::vector<Value>& parts,
               const Value* def = nullptr) {
    for (const auto& p : parts) {
        item = ev.getitem(item, p);
        if (def && !def->is_none() && item.is_undefined()) item = *def;
    }
    return item;
}

Value ignore_case(const Value& v, bool case_sensitive) {
    if (!case_sensitive && v.is_string()) return Value::string(ascii_lower(v.str()));
    return v;
}

std::shared_ptr<List> seq(Evaluator& ev, const Value& v) {
    return ev.iterate(v);
}

// ----- string filters -----

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
    std::string str = soft_str(s);
    const Value* chars = arg(a, 0, "chars");
    if (chars && !chars->is_none())
        return Value::string(strip_chars(str, soft_str(*chars), true, true));
    return Value::string(std::string(strip_space(str, true, true)));
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
    std::string in = soft_str(s), out;
    out.reserve(in.size());
    for (char c : in) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&#34;";
                break;
            case '\'':
                out += "&#39;";
                break;
            default:
                out += c;
        }
    }
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
        auto d = std::make_shared<Dict>();
        for (const auto& [k, v] : a.keyword) d->set(Value::string(k), v);
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

// ----- numbers -----

Value f_abs(Evaluator& ev, const Value& v, Args&) {
    if (v.is_undefined()) ev.raise_undefined(v);
    if (v.is_float()) return Value::real(std::fabs(v.as_float()));
    if (v.is_int() || v.is_bool()) return Value::integer(std::llabs(v.as_int()));
    throw Failure("TypeError", "bad operand type for abs(): '" + type_name(v) + "'");
}

bool parse_int(std::string s, int base, std::int64_t& out) {
    std::string_view t = strip_space(s, true, true);
    bool neg = false;
    if (!t.empty() && (t[0] == '+' || t[0] == '-')) {
        neg = t[0] == '-';
        t.remove_prefix(1);
    }
    if (t.size() > 2 && t[0] == '0') {
        char p = static_cast<char>(std::tolower(t[1]));
        int pb = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 0;
        if (pb && (base == pb || base == 0)) {
            base = pb;
            t.remove_prefix(2);
            if (!t.empty() && t[0] == '_') t.remove_prefix(1);
        }
    }
    if (base == 0) base = 10;
    if (t.empty() || t.front() == '_' || t.back() == '_') return false;
    std::int64_t v = 0;
    char prev = 0;
    for (char c : t) {
        if (c == '_') {
            if (prev == '_') return false;
            prev = c;
            continue;
        }
        prev = c;
        int d = std::isdigit(static_cast<unsigned char>(c))   ? c - '0'
                : std::isalpha(static_cast<unsigned char>(c)) ? std::tolower(c) - 'a' + 10
                                                              : 99;
        if (d >= base) return false;
        if (__builtin_mul_overflow(v, base, &v) || __builtin_add_overflow(v, d, &v)) return false;
    }
    out = neg ? -v : v;
    return true;
}

bool parse_float(const std::string& s, double& out) {
    std::string t(strip_space(s, true, true));
    std::string clean;
    for (char c : t)
        if (c != '_') clean += c;
    std::string lower = ascii_lower(clean);
    if (lower == "inf" || lower == "+inf" || lower == "infinity" || lower == "+infinity")
        return out = HUGE_VAL, true;
    if (lower == "-inf" || lower == "-infinity") return out = -HUGE_VAL, true;
    if (lower == "nan" || lower == "+nan" || lower == "-nan") return out = std::nan(""), true;
    if (clean.empty() || lower.find("x") != std::string::npos ||
        lower.find("inf") != std::string::npos || lower.find("nan") != std::string::npos)
        return false;
    char* end = nullptr;
    out = std::strtod(clean.c_str(), &end);
    return end && *end == '\0';
}

Value f_int(Evaluator& ev, const Value& v, Args& a) {
    const Value* defv = arg(a, 0, "default");
    Value def = defv ? *defv : Value::integer(0);
    std::int64_t base = int_param(a, 1, "base", 10);
    if (v.is_undefined()) ev.raise_undefined(v);
    if (v.is_int()) return v;
    if (v.is_bool()) return Value::integer(v.as_int());
    if (v.is_float()) {
        double f = v.as_float();
        if (!std::isfinite(f)) return def;
        return Value::integer(static_cast<std::int64_t>(f));
    }
    if (v.is_string()) {
        std::int64_t out;
        if (parse_int(v.str(), static_cast<int>(base), out)) return Value::integer(out);
        double f;
        if (parse_float(v.str(), f) && std::isfinite(f))
            return Value::integer(static_cast<std::int64_t>(f));
    }
    return def;
}

Value f_float(Evaluator& ev, const Value& v, Args& a) {
    const Value* defv = arg(a, 0, "default");
    Value def = defv ? *defv : Value::real(0.0);
    if (v.is_undefined()) ev.raise_undefined(v);
    if (v.is_number()) return Value::real(v.as_float());
    double f;
    if (v.is_string() && parse_float(v.str(), f)) return Value::real(f);
    return def;
}

Value f_round(Evaluator& ev, const Value& v, Args& a) {
    std::int64_t precision = int_param(a, 0, "precision", 0);
    const Value* m = arg(a, 1, "method");
    std::string method = m ? soft_str(*m) : "common";
    if (method != "common" && method != "ceil" && method != "floor")
        throw Failure("FilterArgumentError", "method must be common, ceil or floor");
    if (v.is_undefined()) ev.raise_undefined(v);
    if (!v.is_number())
        throw Failure("TypeError", "type " + type_name(v) + " doesn't define __round__ method");
    if (method == "common") {
        if (v.is_int() || v.is_bool()) {
            if (precision >= 0) return Value::integer(v.as_int());
            std::int64_t p = 1;
            for (std::int64_t i = 0; i < -precision && i < 18; ++i) p *= 10;
            double q = std::nearbyint(static_cast<double>(v.as_int()) / static_cast<double>(p));
            return Value::integer(static_cast<std::int64_t>(q) * p);
        }
        double f = v.as_float();
        if (!std::isfinite(f)) return v;
        if (precision == 0) return Value::real(std::nearbyint(f));
        if (precision > 0 && precision < 300) {
            char buf[512];
            std::snprintf(buf, sizeof buf, "%.*f", static_cast<int>(precision), f);
            return Value::real(std::strtod(buf, nullptr));
        }
        double p = std::pow(10.0, static_cast<double>(-precision));
        return Value::real(std::nearbyint(f / p) * p);
    }
    double p = std::pow(10.0, static_cast<double>(precision));
    double f = v.as_float() * p;
    return Value::real((method == "ceil" ? std::ceil(f) : std::floor(f)) / p);
}

Value add(Evaluator& ev, const Value& a, const Value& b) {
    if (a.is_undefined()) ev.raise_undefined(a);
    if (b.is_undefined()) ev.raise_undefined(b);
    if ((a.is_int() || a.is_bool()) && (b.is_int() || b.is_bool()))
        return Value::integer(a.as_int() + b.as_int());
    if (a.is_number() && b.is_number()) return Value::real(a.as_float() + b.as_float());
    if (a.is_list() && b.is_list()) {
        auto l = make_list(a.list().items);
        l->items.insert(l->items.end(), b.list().items.begin(), b.list().items.end());
        ev.check_list(l->items.size());
        return Value::list(l);
    }
    throw Failure("TypeError", "unsupported operand type(s) for +: '" + type_name(a) + "' and '" +
                                   type_name(b) + "'");
}

Value f_sum(Evaluator& ev, const Value& v, Args& a) {
    const Value* attribute = arg(a, 0, "attribute");
    const Value* start = arg(a, 1, "start");
    Value total = start ? *start : Value::integer(0);
    auto parts = attribute ? attribute_parts(*attribute) : std::vector<Value>{};
    for (const auto& item : seq(ev, v)->items)
        total = add(ev, total, parts.empty() ? item : get_path(ev, item, parts));
    return total;
}

// ----- sequences -----

Value f_length(Evaluator&, const Value& v, Args&) {
    switch (v.kind()) {
        case Kind::String:
            return Value::integer(static_cast<std::int64_t>(utf8_length(v.str())));
        case Kind::List:
            if (v.list().flavor == List::Flavor::Generator)
                throw Failure("TypeError", "object of type 'generator' has no len()");
            return Value::integer(static_cast<std::int64_t>(v.list().items.size()));
        case Kind::Dict:
            return Value::integer(static_cast<std::int64_t>(v.dict().items.size()));
        case Kind::Undefined:
            return Value::integer(0);
        case Kind::Namespace:
            return Value::integer(static_cast<std::int64_t>(v.ns().attrs.size()));
        default:
            throw Failure("TypeError", "object of type '" + type_name(v) + "' has no len()");
    }
}

Value f_list(Evaluator& ev, const Value& v, Args&) {
    auto items = seq(ev, v);
    if (v.is_list() && v.list().flavor == List::Flavor::List)
        return Value::list(make_list(items->items));
    return Value::list(make_list(items->items));
}

Value f_first(Evaluator& ev, const Value& v, Args&) {
    if (v.is_string()) {
        auto cs = utf8_chars(v.str());
        if (!cs.empty()) return Value::string(std::string(cs[0]));
    } else {
        auto items = seq(ev, v);
        if (!items->items.empty()) return items->items.front();
    }
    return Value::undefined(UndefinedReason::Plain, "No first item, sequence was empty.");
}

Value f_last(Evaluator& ev, const Value& v, Args&) {
    if (v.is_list() && v.list().flavor == List::Flavor::Generator)
        throw Failure("TypeError", "'generator' object is not reversible");
    if (v.is_string()) {
        auto cs = utf8_chars(v.str());
        if (!cs.empty()) return Value::string(std::string(cs.back()));
    } else {
        auto items = seq(ev, v);
        if (!items->items.empty()) return items->items.back();
    }
    return Value::undefined(UndefinedReason::Plain, "No last item, sequence was empty.");
}

Value f_join(Evaluator& ev, const Value& v, Args& a) {
    const Value* d = arg(a, 0, "d");
    const Value* attribute = arg(a, 1, "attribute");
    std::string sep = d ? soft_str(*d) : "";
    auto parts = attribute ? attribute_parts(*attribute) : std::vector<Value>{};
    std::string out;
    bool first = true;
    for (const auto& item : seq(ev, v)->items) {
        if (!first) out += sep;
        first = false;
        append_str(out, parts.empty() ? item : get_path(ev, item, parts));
        ev.check_string(out.size());
    }
    return Value::string(std::move(out));
}

Value f_reverse(Evaluator& ev, const Value& v, Args&) {
    if (v.is_string()) {
        auto cs = utf8_chars(v.str());
        std::string out;
        for (auto it = cs.rbegin(); it != cs.rend(); ++it) out += *it;
        return Value::string(std::move(out));
    }
    auto items = seq(ev, v)->items;
    std::reverse(items.begin(), items.end());
    return generator(std::move(items));
}

Value f_default(Evaluator&, const Value& v, Args& a) {
    const Value* def = arg(a, 0, "default_value");
    bool boolean = flag(a, 1, "boolean");
    if (v.is_undefined() || (boolean && !truthy(v))) return def ? *def : Value::string("");
    return v;
}

Value f_items(Evaluator&, const Value& v, Args&) {
    if (v.is_undefined()) return generator({});
    if (!v.is_dict()) throw Failure("TypeError", "Can only get item pairs from a mapping.");
    std::vector<Value> out;
    for (const auto& [k, val] : v.dict().items)
        out.push_back(Value::list(make_list({k, val}, List::Flavor::Tuple)));
    return generator(std::move(out));
}

Value f_dictsort(Evaluator&, const Value& v, Args& a) {
    bool case_sensitive = flag(a, 0, "case_sensitive");
    const Value* byv = arg(a, 1, "by");
    std::string by = byv ? soft_str(*byv) : "key";
    bool reverse = flag(a, 2, "reverse");
    if (by != "key" && by != "value")
        throw Failure("FilterArgumentError", "You can only sort by either \"key\" or \"value\"");
    if (!v.is_dict())
        throw Failure("TypeError", "'" + type_name(v) + "' object has no attribute 'items'");
    std::vector<std::pair<Value, Value>> items = v.dict().items;
    int pos = by == "key" ? 0 : 1;
    std::stable_sort(items.begin(), items.end(), [&](const auto& x, const auto& y) {
        const Value& kx = pos ? x.second : x.first;
        const Value& ky = pos ? y.second : y.first;
        return reverse ? less(ignore_case(ky, case_sensitive), ignore_case(kx, case_sensitive))
                       : less(ignore_case(kx, case_sensitive), ignore_case(ky, case_sensitive));
    });
    auto l = make_list();
    for (auto& [k, val] : items)
        l->items.push_back(Value::list(make_list({k, val}, List::Flavor::Tuple)));
    return Value::list(l);
}

Value f_sort(Evaluator& ev, const Value& v, Args& a) {
    bool reverse = flag(a, 0, "reverse");
    bool case_sensitive = flag(a, 1, "case_sensitive");
    const Value* attribute = arg(a, 2, "attribute");
    std::vector<std::vector<Value>> paths;
    if (attribute && attribute->is_string()) {
        for (const auto& part : split_sep(attribute->str(), ",", -1, false))
            paths.push_back(attribute_parts(Value::string(part)));
    } else if (attribute && !attribute->is_none()) {
        paths.push_back(attribute_parts(*attribute));
    }
    auto items = seq(ev, v)->items;
    std::vector<std::pair<Value, Value>> keyed;  // key, item
    keyed.reserve(items.size());
    for (auto& item : items) {
        Value key;
        if (paths.empty()) {
            key = ignore_case(item, case_sensitive);
        } else {
            auto k = make_list();
            for (const auto& p : paths)
                k->items.push_back(ignore_case(get_path(ev, item, p), case_sensitive));
            key = Value::list(k);
        }
        keyed.emplace_back(std::move(key), item);
    }
    std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& x, const auto& y) {
        return reverse ? less(y.first, x.first) : less(x.first, y.first);
    });
    auto l = make_list();
    for (auto& kv : keyed) l->items.push_back(std::move(kv.second));
    return Value::list(l);
}

Value f_unique(Evaluator& ev, const Value& v, Args& a) {
    bool case_sensitive = flag(a, 0, "case_sensitive");
    const Value* attribute = arg(a, 1, "attribute");
    auto parts = attribute ? attribute_parts(*attribute) : std::vector<Value>{};
    std::vector<Value> seen, out;
    for (const auto& item : seq(ev, v)->items) {
        Value key = ignore_case(parts.empty() ? item : get_path(ev, item, parts), case_sensitive);
        if (std::none_of(seen.begin(), seen.end(),
                         [&](const Value& s) { return equals(s, key); })) {
            seen.push_back(key);
            out.push_back(item);
        }
    }
    return generator(std::move(out));
}

Value min_max(Evaluator& ev, const Value& v, Args& a, bool want_max) {
    bool case_sensitive = flag(a, 0, "case_sensitive");
    const Value* attribute = arg(a, 1, "attribute");
    auto parts = attribute ? attribute_parts(*attribute) : std::vector<Value>{};
    auto items = seq(ev, v);
    if (items->items.empty())
        return Value::undefined(UndefinedReason::Plain, "No aggregated item, sequence was empty.");
    const Value* best = &items->items[0];
    Value best_key =
        ignore_case(parts.empty() ? *best : get_path(ev, *best, parts), case_sensitive);
    for (std::size_t i = 1; i < items->items.size(); ++i) {
        Value key = ignore_case(
            parts.empty() ? items->items[i] : get_path(ev, items->items[i], parts), case_sensitive);
        if (want_max ? less(best_key, key) : less(key, best_key)) {
            best = &items->items[i];
            best_key = key;
        }
    }
    return *best;
}
Value f_min(Evaluator& ev, const Value& v, Args& a) {
    return min_max(ev, v, a, false);
}
Value f_max(Evaluator& ev, const Value& v, Args& a) {
    return min_max(ev, v, a, true);
}

Value f_batch(Evaluator& ev, const Value& v, Args& a) {
    std::int64_t n = int_param(a, 0, "linecount", 0);
    if (n <= 0) throw Failure("ValueError", "batch size must be positive");
    const Value* fill = arg(a, 1, "fill_with");
    std::vector<Value> out;
    auto cur = make_list();
    for (const auto& item : seq(ev, v)->items) {
        if (static_cast<std::int64_t>(cur->items.size()) == n) {
            out.push_back(Value::list(cur));
            cur = make_list();
        }
        cur->items.push_back(item);
    }
    if (!cur->items.empty()) {
        if (fill && !fill->is_none())
            while (static_cast<std::int64_t>(cur->items.size()) < n) cur->items.push_back(*fill);
        out.push_back(Value::list(cur));
    }
    return generator(std::move(out));
}

Value f_slice(Evaluator& ev, const Value& v, Args& a) {
    std::int64_t slices = int_param(a, 0, "slices", 0);
    if (slices <= 0) throw Failure("ZeroDivisionError", "integer division or modulo by zero");
    ev.check_list(static_cast<std::size_t>(slices));
    const Value* fill = arg(a, 1, "fill_with");
    auto items = seq(ev, v)->items;
    std::int64_t length = static_cast<std::int64_t>(items.size());
    std::int64_t per = length / slices, extra = length % slices, offset = 0;
    std::vector<Value> out;
    for (std::int64_t s = 0; s < slices; ++s) {
        std::int64_t start = offset + s * per;
        if (s < extra) ++offset;
        std::int64_t end = offset + (s + 1) * per;
        auto part = make_list(std::vector<Value>(items.begin() + start, items.begin() + end));
        if (fill && !fill->is_none() && s >= extra) part->items.push_back(*fill);
        out.push_back(Value::list(part));
    }
    return generator(std::move(out));
}

Value f_groupby(Evaluator& ev, const Value& v, Args& a) {
    const Value* attribute = arg(a, 0, "attribute");
    if (!attribute) throw Failure("TypeError", "groupby() missing required argument 'attribute'");
    const Value* def = arg(a, 1, "default");
    bool case_sensitive = flag(a, 2, "case_sensitive");
    auto parts = attribute_parts(*attribute);
    std::vector<std::pair<Value, Value>> keyed;
    for (const auto& item : seq(ev, v)->items)
        keyed.emplace_back(ignore_case(get_path(ev, item, parts, def), case_sensitive), item);
    std::stable_sort(keyed.begin(), keyed.end(),
                     [](const auto& x, const auto& y) { return less(x.first, y.first); });
    auto out = make_list();
    for (std::size_t i = 0; i < keyed.size();) {
        auto group = make_list();
        std::size_t j = i;
        while (j < keyed.size() && equals(keyed[j].first, keyed[i].first))
            group->items.push_back(keyed[j++].second);
        Value key = keyed[i].first;
        if (!case_sensitive) key = get_path(ev, group->items[0], parts, def);
        out->items.push_back(
            Value::list(make_list({key, Value::list(group)}, List::Flavor::Tuple)));
        i = j;
    }
    return Value::list(out);
}

Value f_attr(Evaluator& ev, const Value& v, Args& a) {
    const Value* name = arg(a, 0, "name");
    if (!name) throw Failure("TypeError", "do_attr() missing required argument 'name'");
    // Python getattr only: a dict's keys are not attributes
    if (v.is_dict()) {
        std::string n = soft_str(*name);
        if (method_kind(v, n, ev.profile()) == MethodKind::None)
            return Value::undefined(UndefinedReason::Attribute, n, "dict object");
    }
    return ev.getattr(v, soft_str(*name));
}

Value f_map(Evaluator& ev, const Value& v, Args& a) {
    if (!truthy(v)) return generator({});
    auto items = seq(ev, v);
    std::vector<Value> out;
    out.reserve(items->items.size());
    ev.tick(items->items.size());
    if (a.positional.empty() && a.kw("attribute")) {
        auto parts = attribute_parts(*a.kw("attribute"));
        const Value* def = a.kw("default");
        for (const auto& item : items->items) out.push_back(get_path(ev, item, parts, def));
        return generator(std::move(out));
    }
    if (a.positional.empty())
        throw Failure("FilterArgumentError", "map requires a filter argument");
    std::string name = soft_str(a.positional[0]);
    Args rest;
    rest.positional.assign(a.positional.begin() + 1, a.positional.end());
    rest.keyword = a.keyword;
    for (const auto& item : items->items) {
        Args call = rest;
        out.push_back(ev.apply_filter(name, item, call));
    }
    return generator(std::move(out));
}

Value select_or_reject(Evaluator& ev, const Value& v, Args& a, bool select, bool by_attr) {
    if (!truthy(v)) return generator({});
    std::vector<Value> parts;
    std::size_t off = 0;
    if (by_attr) {
        if (a.positional.empty())
            throw Failure("FilterArgumentError", "Missing parameter for attribute name");
        parts = attribute_parts(a.positional[0]);
        off = 1;
    }
    bool has_test = a.positional.size() > off;
    std::string test = has_test ? soft_str(a.positional[off]) : std::string();
    Args rest;
    if (has_test)
        rest.positional.assign(a.positional.begin() + static_cast<std::ptrdiff_t>(off) + 1,
                               a.positional.end());
    rest.keyword = a.keyword;
    auto items = seq(ev, v);
    ev.tick(items->items.size());
    std::vector<Value> out;
    for (const auto& item : items->items) {
        Value subject = by_attr ? get_path(ev, item, parts) : item;
        bool ok;
        if (has_test) {
            Args call = rest;
            ok = ev.apply_test(test, subject, call);
        } else {
            ok = truthy(subject);
        }
        if (ok == select) out.push_back(item);
    }
    return generator(std::move(out));
}
Value f_select(Evaluator& ev, const Value& v, Args& a) {
    return select_or_reject(ev, v, a, true, false);
}
Value f_reject(Evaluator& ev, const Value& v, Args& a) {
    return select_or_reject(ev, v, a, false, false);
}
Value f_selectattr(Evaluator& ev, const Value& v, Args& a) {
    return select_or_reject(ev, v, a, true, true);
}
Value f_rejectattr(Evaluator& ev, const Value& v, Args& a) {
    return select_or_reject(ev, v, a, false, true);
}

// ----- JSON and repr -----

// transformers' override: json.dumps(x, ensure_ascii=False, indent=None, separators=None,
// sort_keys=False)
Value f_tojson_chat(Evaluator& ev, const Value& v, Args& a) {
    JsonStyle style;
    style.max_bytes = ev.settings().limits.max_string_bytes;
    style.ensure_ascii = flag(a, 0, "ensure_ascii", false);
    const Value* indent = arg(a, 1, "indent");
    if (indent && !indent->is_none()) {
        style.has_indent = true;
        if (indent->is_string())
            style.indent = indent->str();
        else
            style.indent.assign(static_cast<std::size_t>(std::max<std::int64_t>(
                                    0, std::min<std::int64_t>(indent->as_int(), 1024))),
                                ' ');
        style.item_separator = ",";
    }
    const Value* separators = arg(a, 2, "separators");
    if (separators && !separators->is_none()) {
        auto parts = ev.iterate(*separators);
        if (parts->items.size() != 2)
            throw Failure("ValueError", "separators must be a pair of strings");
        style.item_separator = soft_str(parts->items[0]);
        style.key_separator = soft_str(parts->items[1]);
    }
    style.sort_keys = flag(a, 3, "sort_keys", false);
    return str_result(ev, dumps(v, style));
}

// Jinja's own tojson: json.dumps(sort_keys=True), then <, >, &, ' escaped for HTML.
Value f_tojson_html(Evaluator& ev, const Value& v, Args& a) {
    JsonStyle style;
    style.max_bytes = ev.settings().limits.max_string_bytes;
    style.ensure_ascii = true;
    style.sort_keys = true;
    const Value* indent = arg(a, 0, "indent");
    if (indent && !indent->is_none()) {
        style.has_indent = true;
        if (indent->is_string())
            style.indent = indent->str();
        else
            style.indent.assign(static_cast<std::size_t>(std::max<std::int64_t>(
                                    0, std::min<std::int64_t>(indent->as_int(), 1024))),
                                ' ');
        style.item_separator = ",";
    }
    std::string raw = dumps(v, style), out;
    out.reserve(raw.size());
    for (char c : raw) {
        switch (c) {
            case '<':
                out += "\\u003c";
                break;
            case '>':
                out += "\\u003e";
                break;
            case '&':
                out += "\\u0026";
                break;
            case '\'':
                out += "\\u0027";
                break;
            default:
                out += c;
        }
    }
    return str_result(ev, std::move(out));
}

Value f_pprint(Evaluator&, const Value& v, Args&) {
    std::string out;
    append_repr(out, v);
    return Value::string(std::move(out));
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

const Table& common_table() {
    static const Table t = {
        {"abs", f_abs},
        {"attr", f_attr},
        {"batch", f_batch},
        {"capitalize", f_capitalize},
        {"center", f_center},
        {"count", f_length},
        {"d", f_default},
        {"default", f_default},
        {"dictsort", f_dictsort},
        {"e", f_escape},
        {"escape", f_escape},
        {"filesizeformat", f_filesizeformat},
        {"first", f_first},
        {"float", f_float},
        {"forceescape", f_forceescape},
        {"format", f_format},
        {"groupby", f_groupby},
        {"indent", f_indent},
        {"int", f_int},
        {"items", f_items},
        {"join", f_join},
        {"last", f_last},
        {"length", f_length},
        {"list", f_list},
        {"lower", f_lower},
        {"map", f_map},
        {"max", f_max},
        {"min", f_min},
        {"pprint", f_pprint},
        {"reject", f_reject},
        {"rejectattr", f_rejectattr},
        {"replace", f_replace},
        {"reverse", f_reverse},
        {"round", f_round},
        {"safe", f_safe},
        {"select", f_select},
        {"selectattr", f_selectattr},
        {"slice", f_slice},
        {"sort", f_sort},
        {"string", f_string},
        {"striptags", f_striptags},
        {"sum", f_sum},
        {"title", f_title},
        {"trim", f_trim},
        {"truncate", f_truncate},
        {"unique", f_unique},
        {"upper", f_upper},
        {"urlencode", f_urlencode},
        {"wordcount", f_wordcount},
        {"wordwrap", f_wordwrap},
        {"xmlattr", f_xmlattr},
    };
    return t;
}

}  // namespace

FilterFn find_filter(std::string_view name, Profile profile) {
    if (name == "tojson") return profile == Profile::ChatTemplate ? f_tojson_chat : f_tojson_html;
    const auto& t = common_table();
    auto it = t.find(name);
    return it == t.end() ? nullptr : it->second;
}

}  // namespace cmfpipe::jinja2
