// Builtin number filters: abs, int, float, round, sum (Python's conversions and rounding).
#include <cfenv>
#include <cmath>

#include "filter_args.hpp"

namespace cmfpipe::jinja2 {
namespace {

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
    auto parts = attribute ? attribute_parts(*attribute) : Values{};
    // Held by name: a temporary in a range-for's expression dies before the loop.
    const auto sequence = seq(ev, v);
    for (const auto& item : sequence->items)
        total = add(ev, total, parts.empty() ? item : get_path(ev, item, parts));
    return total;
}

}  // namespace

void add_number_filters(FilterTable& table) {
    table.emplace("abs", f_abs);
    table.emplace("float", f_float);
    table.emplace("int", f_int);
    table.emplace("round", f_round);
    table.emplace("sum", f_sum);
}

}  // namespace cmfpipe::jinja2
