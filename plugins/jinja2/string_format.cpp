// Python's two string formatting languages: str.format ("{0:>8.2f}", "{name}") and printf-style
// '%' ("%-5s %03d %.2f"), as the `format` filter and the str.format method use them.
#include <cmath>
#include <cstdio>

#include "evaluator.hpp"
#include "failure.hpp"
#include "methods.hpp"
#include "text.hpp"

namespace cmfpipe::jinja2 {
namespace {

struct Spec {
    std::string fill = " ";
    char align = '\0';
    char sign = '-';
    bool alternate = false;
    bool zero = false;
    std::int64_t width = -1;
    char grouping = '\0';
    std::int64_t precision = -1;
    char type = '\0';
};

Spec parse_spec(std::string_view s) {
    Spec sp;
    std::size_t i = 0;
    auto is_align = [](char c) { return c == '<' || c == '>' || c == '^' || c == '='; };
    if (s.size() >= 2 && is_align(s[1]) && (static_cast<unsigned char>(s[0]) < 0x80)) {
        sp.fill = std::string(1, s[0]);
        sp.align = s[1];
        i = 2;
    } else if (!s.empty() && is_align(s[0])) {
        sp.align = s[0];
        i = 1;
    }
    if (i < s.size() && (s[i] == '+' || s[i] == '-' || s[i] == ' ')) sp.sign = s[i++];
    if (i < s.size() && s[i] == '#') sp.alternate = true, ++i;
    if (i < s.size() && s[i] == '0') sp.zero = true, ++i;
    std::int64_t w = 0;
    bool has_w = false;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
        w = std::min<std::int64_t>(w * 10 + (s[i++] - '0'), 1'000'000'000'000LL);
        has_w = true;
    }
    if (has_w) sp.width = w;
    if (i < s.size() && (s[i] == ',' || s[i] == '_')) sp.grouping = s[i++];
    if (i < s.size() && s[i] == '.') {
        ++i;
        std::int64_t p = 0;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])))
            p = std::min<std::int64_t>(p * 10 + (s[i++] - '0'), 1'000'000);
        sp.precision = p;
    }
    if (i < s.size()) sp.type = s[i++];
    if (i != s.size()) throw Failure("ValueError", "Invalid format specifier");
    return sp;
}

std::string group_digits(std::string digits, char sep) {
    std::string out;
    int n = 0;
    for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
        if (n && n % 3 == 0) out += sep;
        out += *it;
        ++n;
    }
    return std::string(out.rbegin(), out.rend());
}

std::string format_number(const Value& v, const Spec& sp) {
    std::string body;
    bool negative = false;
    char type = sp.type;
    if (v.is_int() || v.is_bool()) {
        if (type == '\0' || type == 'd' || type == 'n') {
            std::int64_t i = v.as_int();
            negative = i < 0;
            body = std::to_string(i < 0 ? -static_cast<unsigned long long>(i)
                                        : static_cast<unsigned long long>(i));
            if (sp.grouping) body = group_digits(body, sp.grouping);
        } else if (type == 'x' || type == 'X' || type == 'o' || type == 'b') {
            std::int64_t i = v.as_int();
            negative = i < 0;
            unsigned long long u =
                i < 0 ? -static_cast<unsigned long long>(i) : static_cast<unsigned long long>(i);
            int base = type == 'o' ? 8 : type == 'b' ? 2 : 16;
            const char* digits = type == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
            do {
                body.insert(body.begin(), digits[u % static_cast<unsigned>(base)]);
                u /= static_cast<unsigned>(base);
            } while (u);
            if (sp.alternate)
                body = std::string("0") + (type == 'o' ? 'o' : type == 'b' ? 'b' : type) + body;
        } else if (type == 'c') {
            body = std::string(1, static_cast<char>(v.as_int()));
        } else {
            return format_number(Value::real(v.as_float()), sp);
        }
    } else {
        double f = v.as_float();
        negative = std::signbit(f) && !std::isnan(f);
        double a = std::fabs(f);
        if (type == '\0' && sp.precision < 0) {
            append_float(body, a);
        } else {
            char t = type == '\0' ? 'g' : type;
            if (t == '%') a *= 100;
            int prec = static_cast<int>(sp.precision < 0 ? 6 : sp.precision);
            char fmt[16];
            char conv = t == '%' ? 'f' : (t == 'n' ? 'g' : t);
            if (conv != 'f' && conv != 'F' && conv != 'e' && conv != 'E' && conv != 'g' &&
                conv != 'G')
                throw Failure("ValueError", std::string("Unknown format code '") + t +
                                                "' for object of type 'float'");
            std::snprintf(fmt, sizeof fmt, sp.alternate ? "%%#.%d%c" : "%%.%d%c", prec, conv);
            char buf[512];
            int n = std::snprintf(buf, sizeof buf, fmt, a);
            body.assign(buf, static_cast<std::size_t>(std::max(0, std::min(n, 511))));
            if (type == '\0' && body.find_first_of(".e") == std::string::npos && std::isfinite(a))
                body += ".0";
            if (t == '%') body += '%';
        }
        if (sp.grouping) {
            std::size_t dot = body.find_first_of(".e");
            body = group_digits(body.substr(0, dot), sp.grouping) +
                   (dot == std::string::npos ? "" : body.substr(dot));
        }
    }
    std::string sign = negative ? "-" : sp.sign == '+' ? "+" : sp.sign == ' ' ? " " : "";
    char align = sp.align ? sp.align : '>';
    std::string fill = sp.fill;
    if (sp.zero && !sp.align) {
        align = '=';
        fill = "0";
    }
    std::int64_t len = static_cast<std::int64_t>(sign.size() + body.size());
    if (sp.width > len) {
        std::int64_t total = sp.width - len;
        std::string padding;
        if (align == '=') {
            for (std::int64_t i = 0; i < total; ++i) padding += fill;
            return sign + padding + body;
        }
        return pad(sign + body, sp.width, fill, align == '^' ? 'c' : align);
    }
    return sign + body;
}

std::string format_value(Evaluator& ev, const Value& v, std::string_view spec_text) {
    if (spec_text.empty()) return to_str(v);
    Spec sp = parse_spec(spec_text);
    if (sp.width > 0) ev.check_string(static_cast<std::size_t>(sp.width));
    if (v.is_number() && !(v.is_bool() && (sp.type == '\0' || sp.type == 's')))
        return format_number(v, sp);
    if (sp.type != '\0' && sp.type != 's')
        throw Failure("ValueError", std::string("Unknown format code '") + sp.type +
                                        "' for object of type '" + type_name(v) + "'");
    std::string s = to_str(v);
    if (sp.precision >= 0) {
        auto chars = utf8_chars(s);
        if (static_cast<std::int64_t>(chars.size()) > sp.precision) {
            std::string cut;
            for (std::int64_t i = 0; i < sp.precision; ++i)
                cut += chars[static_cast<std::size_t>(i)];
            s = cut;
        }
    }
    char align = sp.align ? sp.align : '<';
    if (align == '=')
        throw Failure("ValueError", "'=' alignment not allowed in string format specifier");
    return pad(s, sp.width, sp.fill, align == '^' ? 'c' : align);
}

}  // namespace

std::string python_format(Evaluator& ev, std::string_view fmt, const Args& args) {
    std::string out;
    std::size_t auto_index = 0;
    bool used_auto = false, used_manual = false;
    for (std::size_t i = 0; i < fmt.size();) {
        char c = fmt[i];
        if (c == '}') {
            if (i + 1 < fmt.size() && fmt[i + 1] == '}') {
                out += '}';
                i += 2;
                continue;
            }
            throw Failure("ValueError", "Single '}' encountered in format string");
        }
        if (c != '{') {
            out += c;
            ++i;
            continue;
        }
        if (i + 1 < fmt.size() && fmt[i + 1] == '{') {
            out += '{';
            i += 2;
            continue;
        }
        std::size_t end = fmt.find('}', i);
        if (end == std::string_view::npos)
            throw Failure("ValueError", "Single '{' encountered in format string");
        std::string_view field = fmt.substr(i + 1, end - i - 1);
        i = end + 1;
        std::string_view spec;
        char conversion = '\0';
        if (auto colon = field.find(':'); colon != std::string_view::npos) {
            spec = field.substr(colon + 1);
            field = field.substr(0, colon);
        }
        if (auto bang = field.find('!'); bang != std::string_view::npos) {
            if (bang + 1 < field.size()) conversion = field[bang + 1];
            field = field.substr(0, bang);
        }
        // first part: index or name; then .attr / [key] chains
        std::size_t stop = field.find_first_of(".[");
        std::string_view head = field.substr(0, stop);
        Value v;
        if (head.empty()) {
            if (used_manual)
                throw Failure(
                    "ValueError",
                    "cannot switch from manual field specification to automatic field numbering");
            used_auto = true;
            if (auto_index >= args.positional.size())
                throw Failure("IndexError", "Replacement index " + std::to_string(auto_index) +
                                                " out of range for positional args tuple");
            v = args.positional[auto_index++];
        } else if (std::isdigit(static_cast<unsigned char>(head[0]))) {
            if (used_auto)
                throw Failure(
                    "ValueError",
                    "cannot switch from automatic field numbering to manual field specification");
            used_manual = true;
            std::size_t idx = static_cast<std::size_t>(std::stoull(std::string(head)));
            if (idx >= args.positional.size())
                throw Failure("IndexError", "Replacement index " + std::to_string(idx) +
                                                " out of range for positional args tuple");
            v = args.positional[idx];
        } else {
            const Value* kw = args.kw(head);
            if (!kw) throw Failure("KeyError", repr_string(head));
            v = *kw;
        }
        std::string_view rest =
            stop == std::string_view::npos ? std::string_view() : field.substr(stop);
        while (!rest.empty()) {
            if (rest[0] == '.') {
                std::size_t n = rest.find_first_of(".[", 1);
                std::string_view attr =
                    rest.substr(1, n == std::string_view::npos ? std::string_view::npos : n - 1);
                if (!attr.empty() && attr[0] == '_')
                    throw Failure("SecurityError",
                                  "access to attribute " + repr_string(attr) + " is unsafe.");
                v = ev.getattr(v, attr);
                rest = n == std::string_view::npos ? std::string_view() : rest.substr(n);
            } else {
                std::size_t close = rest.find(']');
                if (close == std::string_view::npos)
                    throw Failure("ValueError", "Missing ']' in format string");
                std::string_view key = rest.substr(1, close - 1);
                bool digits = !key.empty() && std::all_of(key.begin(), key.end(), [](char ch) {
                    return std::isdigit(static_cast<unsigned char>(ch));
                });
                v = ev.getitem(v, digits ? Value::integer(std::stoll(std::string(key)))
                                         : Value::string(std::string(key)));
                rest = rest.substr(close + 1);
            }
        }
        if (conversion == 'r' || conversion == 'a') {
            std::string r;
            append_repr(r, v);
            v = Value::string(std::move(r));
        } else if (conversion == 's') {
            v = Value::string(to_str(v));
        }
        out += format_value(ev, v, spec);
        ev.check_string(out.size());
    }
    return out;
}

std::string percent_format(Evaluator& ev, std::string_view fmt, const Value& args) {
    Values positional;
    const Dict* mapping = nullptr;
    if (args.is_list() && args.list().flavor == List::Flavor::Tuple)
        positional = args.list().items;
    else if (args.is_dict())
        mapping = &args.dict(), positional.push_back(args);
    else
        positional.push_back(args);
    std::size_t next = 0;
    std::string out;
    for (std::size_t i = 0; i < fmt.size();) {
        char c = fmt[i++];
        if (c != '%') {
            out += c;
            continue;
        }
        if (i >= fmt.size()) throw Failure("ValueError", "incomplete format");
        const Value* v = nullptr;
        Value holder;
        if (fmt[i] == '(') {
            std::size_t close = fmt.find(')', i);
            if (close == std::string_view::npos)
                throw Failure("ValueError", "incomplete format key");
            if (!mapping) throw Failure("TypeError", "format requires a mapping");
            std::string_view key = fmt.substr(i + 1, close - i - 1);
            const Value* found = mapping->find(key);
            if (!found) throw Failure("KeyError", repr_string(key));
            holder = *found;
            v = &holder;
            i = close + 1;
        }
        Spec sp;
        sp.align = '>';
        for (; i < fmt.size(); ++i) {
            char f = fmt[i];
            if (f == '-')
                sp.align = '<';
            else if (f == '+')
                sp.sign = '+';
            else if (f == ' ') {
                if (sp.sign != '+') sp.sign = ' ';
            } else if (f == '#')
                sp.alternate = true;
            else if (f == '0')
                sp.zero = true;
            else
                break;
        }
        auto number = [&](std::int64_t& target) {
            if (i < fmt.size() && fmt[i] == '*') {
                if (next >= positional.size())
                    throw Failure("TypeError", "not enough arguments for format string");
                target = positional[next++].as_int();
                ++i;
                return;
            }
            std::int64_t n = 0;
            bool any = false;
            while (i < fmt.size() && std::isdigit(static_cast<unsigned char>(fmt[i]))) {
                n = std::min<std::int64_t>(n * 10 + (fmt[i++] - '0'), 1'000'000'000'000LL);
                any = true;
            }
            if (any) target = n;
        };
        number(sp.width);
        if (i < fmt.size() && fmt[i] == '.') {
            ++i;
            sp.precision = 0;
            number(sp.precision);
        }
        if (i >= fmt.size()) throw Failure("ValueError", "incomplete format");
        char conv = fmt[i++];
        if (conv == '%') {
            out += '%';
            continue;
        }
        if (!v) {
            if (next >= positional.size())
                throw Failure("TypeError", "not enough arguments for format string");
            v = &positional[next++];
        }
        if (sp.width > 0) ev.check_string(static_cast<std::size_t>(sp.width));
        if (sp.zero && sp.align == '<') sp.zero = false;
        std::string piece;
        switch (conv) {
            case 's':
            case 'r':
            case 'a': {
                std::string s;
                if (conv == 's')
                    s = to_str(*v);
                else
                    append_repr(s, *v);
                if (sp.precision >= 0 && static_cast<std::int64_t>(s.size()) > sp.precision)
                    s.resize(static_cast<std::size_t>(sp.precision));
                piece = pad(s, sp.width, " ", sp.align);
                break;
            }
            case 'd':
            case 'i':
            case 'u': {
                if (!v->is_number())
                    throw Failure("TypeError", "%" + std::string(1, conv) +
                                                   " format: a real number is required, not " +
                                                   type_name(*v));
                Spec n = sp;
                n.type = 'd';
                if (n.zero) n.align = '\0';
                piece = format_number(
                    Value::integer(v->is_float() ? static_cast<std::int64_t>(v->as_float())
                                                 : v->as_int()),
                    n);
                break;
            }
            case 'x':
            case 'X':
            case 'o':
            case 'e':
            case 'E':
            case 'f':
            case 'F':
            case 'g':
            case 'G': {
                if (!v->is_number())
                    throw Failure("TypeError", "must be real number, not " + type_name(*v));
                Spec n = sp;
                n.type = conv;
                if (n.zero) n.align = '\0';
                if ((conv == 'x' || conv == 'X' || conv == 'o') && v->is_float())
                    throw Failure("TypeError", "%" + std::string(1, conv) +
                                                   " format: an integer is required, not float");
                piece = format_number(
                    conv == 'x' || conv == 'X' || conv == 'o' ? *v : Value::real(v->as_float()), n);
                break;
            }
            case 'c':
                piece = to_str(*v);
                break;
            default:
                throw Failure("ValueError",
                              std::string("unsupported format character '") + conv + "'");
        }
        out += piece;
        ev.check_string(out.size());
    }
    if (!mapping && next < positional.size())
        throw Failure("TypeError", "not all arguments converted during string formatting");
    return out;
}

}  // namespace cmfpipe::jinja2
