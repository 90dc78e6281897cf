// Arithmetic: Python's +, -, *, /, //, %, ** and ~ over ints, floats, strings and sequences,
// with int overflow falling back to float and sequence repetition bounded by the sandbox.
#include <algorithm>
#include <cmath>

#include "evaluator.hpp"
#include "methods.hpp"
#include "text.hpp"

namespace cmfpipe::jinja2 {
namespace {

bool checked_add(std::int64_t a, std::int64_t b, std::int64_t& r) {
    return !__builtin_add_overflow(a, b, &r);
}
bool checked_sub(std::int64_t a, std::int64_t b, std::int64_t& r) {
    return !__builtin_sub_overflow(a, b, &r);
}
bool checked_mul(std::int64_t a, std::int64_t b, std::int64_t& r) {
    return !__builtin_mul_overflow(a, b, &r);
}

[[noreturn]] void unsupported(const char* op, const Value& a, const Value& b) {
    throw Failure("TypeError", std::string("unsupported operand type(s) for ") + op + ": '" +
                                   type_name(a) + "' and '" + type_name(b) + "'");
}

}  // namespace

Value Evaluator::eval_binary(const BinaryExpr& e) {
    Value a = eval(*e.left);
    Value b = eval(*e.right);
    if ((e.op == BinaryOp::Add || e.op == BinaryOp::Concat) && a.is_string() && !a.is_markup() &&
        !a.sole_string()) {
        // 'prefix' + s, where s is a string no one else holds (a filter's result, say): s takes
        // the prefix in front, instead of both being copied into a new string
        if (std::string* sole = b.sole_string()) {
            check_string(a.str().size() + sole->size());
            sole->insert(0, a.str());
            return b;
        }
    }
    return binary(e.op, std::move(a), b);
}

// {{ a + b ~ c }}: while the operands are plain strings, each is written as it comes instead of
// building the sum first (the output is the same, and so is the string accounting). At the first
// other operand (a number, a list, a Markup that would escape the rest), what was written becomes
// the string it stands for again and the rest is added as eval_binary adds.
void Evaluator::print_sum(const BinaryExpr& e) {
    const BinaryExpr* spine[16];
    std::size_t n = 0;
    const Expr* leftmost = &e;
    while (leftmost->kind == ExprKind::Binary && n < std::size(spine)) {
        const auto& b = static_cast<const BinaryExpr&>(*leftmost);
        if (b.op != BinaryOp::Add && b.op != BinaryOp::Concat) break;
        spine[n++] = &b;
        leftmost = b.left.get();
    }
    // Errors are located as eval would locate them: at the innermost operator around them.
    settle_held();
    const std::size_t start = out_->size();
    // Operands are read in place (eval_ref): each is used before the next is evaluated.
    Value sum, temp;
    bool writing = printed_macro_call(*leftmost);
    if (!writing) {
        const Value& first =
            located(*spine[n - 1], [&]() -> const Value& { return eval_ref(*leftmost, temp); });
        writing = first.is_string() && !first.is_markup();
        if (writing)
            out_->append(first.str());
        else if (&first == &temp)
            sum = std::move(temp);  // a value made here stays the only holder of its string
        else
            sum = first;
    }
    while (n > 0) {
        const BinaryExpr& b = *spine[--n];
        if (writing && printed_macro_call(*b.right)) {  // a macro's value is a plain string
            check_string(out_->size() - start);
            continue;
        }
        const Value& operand =
            located(b, [&]() -> const Value& { return eval_ref(*b.right, temp); });
        if (writing && operand.is_string() && !operand.is_markup()) {
            out_->append(operand.str());
            check_string(out_->size() - start);
            continue;
        }
        if (writing) {  // the written text is the left operand again
            sum = Value::string(out_->substr(start));
            out_->resize(start);
            writing = false;
        }
        sum = located(b, [&] { return binary(b.op, std::move(sum), operand); });
    }
    if (!writing)
        write_value(sum);
    else
        check_output();  // once the sum is known, as writing the sum would
}

Value Evaluator::binary(BinaryOp op, Value a, const Value& b) {
    if (op == BinaryOp::Concat) {
        if (std::string* sole = a.sole_string()) {  // a ~ b ~ c grows one string
            append_str(*sole, b);
            check_string(sole->size());
            return a;
        }
        std::string s;
        append_str(s, a);
        append_str(s, b);
        return make_string(std::move(s));
    }
    if (a.is_undefined()) raise_undefined(a);
    if (b.is_undefined()) raise_undefined(b);
    bool ints = (a.is_int() || a.is_bool()) && (b.is_int() || b.is_bool());
    bool nums = a.is_number() && b.is_number();
    std::int64_t r = 0;
    switch (op) {
        case BinaryOp::Add:
            if (ints && checked_add(a.as_int(), b.as_int(), r)) return Value::integer(r);
            if (nums) return Value::real(a.as_float() + b.as_float());
            if (a.is_string() && b.is_string() && (a.is_markup() || b.is_markup())) {
                // Markup + str escapes the plain side (markupsafe semantics); a Markup no other
                // value holds is extended in place
                std::string made;
                std::string* out = a.sole_markup();
                if (!out) {
                    out = &made;
                    made.reserve(a.str().size() + b.str().size());
                    if (a.is_markup())
                        made = a.str();
                    else
                        append_html_escaped(made, a.str());
                }
                if (b.is_markup())
                    *out += b.str();
                else
                    append_html_escaped(*out, b.str());
                check_string(out->size());
                return out == &made ? Value::markup(std::move(made)) : a;
            }
            if (a.is_string() && b.is_string()) {
                check_string(a.str().size() + b.str().size());
                if (std::string* sole = a.sole_string()) {  // a + b + c grows one string
                    sole->append(b.str());
                    return a;
                }
                std::string s;
                s.reserve(a.str().size() + b.str().size());
                s += a.str();
                s += b.str();
                return Value::string(std::move(s));
            }
            if (a.is_list() && b.is_list() && a.list().flavor == b.list().flavor &&
                a.list().flavor != List::Flavor::Generator) {
                check_list(a.list().items.size() + b.list().items.size());
                auto l = make_list(a.list().items, a.list().flavor);
                l->items.insert(l->items.end(), b.list().items.begin(), b.list().items.end());
                return Value::list(std::move(l));
            }
            if (a.is_string())
                throw Failure("TypeError",
                              "can only concatenate str (not \"" + type_name(b) + "\") to str");
            if (a.is_list() && a.list().flavor != List::Flavor::Generator)
                throw Failure("TypeError", "can only concatenate " + type_name(a) + " (not \"" +
                                               type_name(b) + "\") to " + type_name(a));
            unsupported("+", a, b);
        case BinaryOp::Sub:
            if (ints && checked_sub(a.as_int(), b.as_int(), r)) return Value::integer(r);
            if (nums) return Value::real(a.as_float() - b.as_float());
            unsupported("-", a, b);
        case BinaryOp::Mul: {
            if (ints && checked_mul(a.as_int(), b.as_int(), r)) return Value::integer(r);
            if (nums) return Value::real(a.as_float() * b.as_float());
            const Value* seq = a.is_string() || a.is_list() ? &a : &b;
            const Value* times = seq == &a ? &b : &a;
            if ((seq->is_string() ||
                 (seq->is_list() && seq->list().flavor != List::Flavor::Generator)) &&
                (times->is_int() || times->is_bool())) {
                std::int64_t n = std::max<std::int64_t>(0, times->as_int());
                if (seq->is_string()) {
                    const std::string& s = seq->str();
                    if (!s.empty() && static_cast<std::uint64_t>(n) >
                                          settings_.limits.max_string_bytes / s.size())
                        fail_string(s.size() *
                                    static_cast<std::size_t>(std::min<std::int64_t>(n, INT32_MAX)));
                    check_string(s.size() * static_cast<std::size_t>(n));
                    std::string out;
                    out.reserve(s.size() * static_cast<std::size_t>(n));
                    for (std::int64_t i = 0; i < n; ++i) out += s;
                    return Value::string(std::move(out));
                }
                const auto& items = seq->list().items;
                if (!items.empty() &&
                    static_cast<std::uint64_t>(n) > settings_.limits.max_list_items / items.size())
                    fail_list(items.size() *
                              static_cast<std::size_t>(std::min<std::int64_t>(n, INT32_MAX)));
                check_list(items.size() * static_cast<std::size_t>(n));
                auto l = make_list({}, seq->list().flavor);
                for (std::int64_t i = 0; i < n; ++i)
                    l->items.insert(l->items.end(), items.begin(), items.end());
                return Value::list(std::move(l));
            }
            if (seq->is_string() || seq->is_list())
                throw Failure("TypeError", "can't multiply sequence by non-int of type '" +
                                               type_name(*times) + "'");
            unsupported("*", a, b);
        }
        case BinaryOp::Div:
            if (nums) {
                if (b.as_float() == 0.0) throw Failure("ZeroDivisionError", "division by zero");
                return Value::real(a.as_float() / b.as_float());
            }
            unsupported("/", a, b);
        case BinaryOp::FloorDiv:
            if (ints) {
                if (b.as_int() == 0)
                    throw Failure("ZeroDivisionError", "integer division or modulo by zero");
                std::int64_t q = a.as_int() / b.as_int();
                if ((a.as_int() % b.as_int() != 0) && ((a.as_int() < 0) != (b.as_int() < 0))) --q;
                return Value::integer(q);
            }
            if (nums) {
                if (b.as_float() == 0.0)
                    throw Failure("ZeroDivisionError", "float floor division by zero");
                return Value::real(std::floor(a.as_float() / b.as_float()));
            }
            unsupported("//", a, b);
        case BinaryOp::Mod:
            if (a.is_string()) return make_string(percent_format(*this, a.str(), b));
            if (ints) {
                if (b.as_int() == 0)
                    throw Failure("ZeroDivisionError", "integer division or modulo by zero");
                std::int64_t m = a.as_int() % b.as_int();
                if (m != 0 && ((m < 0) != (b.as_int() < 0))) m += b.as_int();
                return Value::integer(m);
            }
            if (nums) {
                if (b.as_float() == 0.0) throw Failure("ZeroDivisionError", "float modulo");
                double m = std::fmod(a.as_float(), b.as_float());
                if (m != 0 && ((m < 0) != (b.as_float() < 0))) m += b.as_float();
                return Value::real(m);
            }
            unsupported("%", a, b);
        case BinaryOp::Pow:
            if (ints && b.as_int() >= 0) {
                std::int64_t base = a.as_int(), exp = b.as_int(), result = 1;
                bool overflow = false;
                while (exp > 0 && !overflow) {
                    if (exp & 1) overflow = !checked_mul(result, base, result);
                    exp >>= 1;
                    if (exp > 0 && !overflow) overflow = !checked_mul(base, base, base);
                }
                if (!overflow) return Value::integer(result);
                return Value::real(std::pow(a.as_float(), b.as_float()));
            }
            if (nums) {
                if (a.as_float() == 0.0 && b.as_float() < 0)
                    throw Failure("ZeroDivisionError", "0.0 cannot be raised to a negative power");
                return Value::real(std::pow(a.as_float(), b.as_float()));
            }
            unsupported("** or pow()", a, b);
        default:
            break;
    }
    return Value();
}

}  // namespace cmfpipe::jinja2
