// Expressions other than arithmetic and calls: constants, names, attribute and item access,
// unary operators, comparisons (with `in`), slices, and list and dict literals.
#include "evaluator.hpp"

namespace cmfpipe::jinja2 {
namespace {

// Python's slice index normalisation for a sequence of length n.
void slice_indices(std::int64_t n, const Value* start, const Value* stop, std::int64_t step,
                   std::int64_t& lo, std::int64_t& hi) {
    auto clamp = [&](const Value* v, std::int64_t def_pos, std::int64_t def_neg) -> std::int64_t {
        if (!v || v->is_none() || v->is_undefined()) return step > 0 ? def_pos : def_neg;
        if (!v->is_int() && !v->is_bool())
            throw Failure("TypeError",
                          "slice indices must be integers or None or have an __index__ method");
        std::int64_t i = v->as_int();
        if (i < 0) {
            i += n;
            if (i < 0) i = step > 0 ? 0 : -1;
        } else if (i >= n) {
            i = step > 0 ? n : n - 1;
        }
        return i;
    };
    lo = clamp(start, 0, n - 1);
    hi = clamp(stop, n, -1);
}

bool contains(Evaluator& ev, const Value& container, const Value& item) {
    switch (container.kind()) {
        case Kind::String:
            if (!item.is_string()) {
                if (item.is_undefined()) ev.raise_undefined(item);
                throw Failure("TypeError", "'in <string>' requires string as left operand, not " +
                                               type_name(item));
            }
            return container.str().find(item.str()) != std::string::npos;
        case Kind::List:
            for (const auto& v : container.list().items)
                if (equals(v, item)) return true;
            return false;
        case Kind::Dict:
            return container.dict().find(item) != nullptr;
        case Kind::Undefined:
            return false;
        case Kind::Namespace:
            return false;
        default:
            throw Failure("TypeError",
                          "argument of type '" + type_name(container) + "' is not iterable");
    }
}

}  // namespace

Value Evaluator::eval_node(const Expr& e) {
    switch (e.kind) {
        case ExprKind::GetAttr: {
            const auto& g = static_cast<const GetAttrExpr&>(e);
            Value temp;
            const Value& obj = eval_operand(*g.object, temp);
            return located(e, [&] { return getattr(obj, g.attr, &g); });
        }
        case ExprKind::GetItem: {
            const auto& g = static_cast<const GetItemExpr&>(e);
            Value temp, key_temp;
            const Value& obj = eval_operand(*g.object, temp);
            const Value& key = g.key->kind == ExprKind::Const
                                   ? static_cast<const ConstExpr&>(*g.key).value
                                   : eval_operand(*g.key, key_temp);
            return located(e, [&] { return getitem(obj, key, &g); });
        }
        case ExprKind::Slice:
            return eval_slice(static_cast<const SliceExpr&>(e));
        case ExprKind::Binary: {
            const auto& b = static_cast<const BinaryExpr&>(e);
            if (b.op == BinaryOp::And) {
                Value l = eval(*b.left);
                return truthy(l) ? eval(*b.right) : l;
            }
            if (b.op == BinaryOp::Or) {
                Value l = eval(*b.left);
                return truthy(l) ? l : eval(*b.right);
            }
            return located(e, [&] { return eval_binary(b); });
        }
        case ExprKind::Compare:
            return Value::boolean(
                located(e, [&] { return compare(static_cast<const CompareExpr&>(e)); }));
        case ExprKind::Call:
            return located(e, [&] { return eval_call(static_cast<const CallExpr&>(e)); });
        case ExprKind::Filter:
            return eval_filter(static_cast<const FilterExpr&>(e), nullptr);
        default:
            return eval_other(e);
    }
}

// The expression kinds a chat template evaluates less often, out of eval() so that its frame
// stays small: eval runs for every node.
Value Evaluator::eval_other(const Expr& e) {
    switch (e.kind) {
        case ExprKind::Unary: {
            const auto& u = static_cast<const UnaryExpr&>(e);
            if (u.op == UnaryOp::Not) return Value::boolean(!condition(*u.operand));
            Value v = eval(*u.operand);
            return located(e, [&] {
                if (v.is_undefined()) raise_undefined(v);
                if (v.is_float())
                    return Value::real(u.op == UnaryOp::Neg ? -v.as_float() : v.as_float());
                if (v.is_int() || v.is_bool())
                    return Value::integer(u.op == UnaryOp::Neg ? -v.as_int() : v.as_int());
                throw Failure("TypeError", std::string("bad operand type for unary ") +
                                               (u.op == UnaryOp::Neg ? "-" : "+") + ": '" +
                                               type_name(v) + "'");
            });
        }
        case ExprKind::CondExpr: {
            const auto& c = static_cast<const CondExpr&>(e);
            if (condition(*c.test)) return eval(*c.then);
            if (c.otherwise) return eval(*c.otherwise);
            return Value::undefined(UndefinedReason::Plain,
                                    "the inline if-expression on line " + std::to_string(e.line) +
                                        " evaluated to false and no else section was defined.");
        }
        case ExprKind::ListLit: {
            const auto& l = static_cast<const ListExpr&>(e);
            auto list = make_list({}, l.tuple ? List::Flavor::Tuple : List::Flavor::List);
            list->items.reserve(l.items.size());
            for (const auto& item : l.items) list->items.push_back(eval(*item));
            return Value::list(std::move(list));
        }
        case ExprKind::DictLit: {
            const auto& d = static_cast<const DictExpr&>(e);
            auto dict = make_ref<Dict>();
            dict->items.reserve(d.items.size());
            for (const auto& [k, v] : d.items) {
                Value key = eval(*k);
                if (key.is_list() && key.list().flavor != List::Flavor::Tuple)
                    throw Failure("TypeError", "unhashable type: 'list'", e.line, e.column);
                if (key.is_dict())
                    throw Failure("TypeError", "unhashable type: 'dict'", e.line, e.column);
                dict->set(std::move(key), eval(*v));
            }
            return Value::dict(std::move(dict));
        }
        case ExprKind::Test:
            return Value::boolean(test(static_cast<const TestExpr&>(e)));
        case ExprKind::UnknownFilter: {
            const auto& u = static_cast<const UnknownFilterExpr&>(e);
            throw Failure("TemplateRuntimeError",
                          std::string("No ") + (u.is_test ? "test" : "filter") + " named '" +
                              u.name + "' found.",
                          e.line, e.column);
        }
        default:
            return Value();
    }
}

bool Evaluator::condition(const Expr& e) {
    switch (e.kind) {
        case ExprKind::Const:
        case ExprKind::Name:
        case ExprKind::GetAttr:
        case ExprKind::GetItem: {
            Value temp;
            return truthy(eval_ref(e, temp));
        }
        case ExprKind::Compare:
            return located(e, [&] { return compare(static_cast<const CompareExpr&>(e)); });
        case ExprKind::Test:
            return test(static_cast<const TestExpr&>(e));
        case ExprKind::Unary:
            if (static_cast<const UnaryExpr&>(e).op == UnaryOp::Not)
                return !condition(*static_cast<const UnaryExpr&>(e).operand);
            break;
        case ExprKind::Binary: {
            // (the truth of `a and b` is a's and then b's; of `a or b`, a's or else b's)
            const auto& b = static_cast<const BinaryExpr&>(e);
            if (b.op == BinaryOp::And) return condition(*b.left) && condition(*b.right);
            if (b.op == BinaryOp::Or) return condition(*b.left) || condition(*b.right);
            break;
        }
        default:
            break;
    }
    return truthy(eval(e));
}

bool Evaluator::test(const TestExpr& t) {
    Value temp;
    // (in place only when no argument is evaluated after it)
    const Value& subject =
        t.args.empty() ? eval_ref(*t.subject, temp) : eval_operand(*t.subject, temp);
    Args args;
    eval_args(t.args, args);
    bool r = located(t, [&] { return t.fn(*this, subject, args); });
    return t.negated ? !r : r;
}

bool Evaluator::compare(const CompareExpr& e) {
    if (e.rest.size() == 1 &&
        (e.rest[0].first == CompareOp::Eq || e.rest[0].first == CompareOp::Ne)) {
        // x == 'y', the usual test: both sides in place when the right one evaluates nothing
        // that could change the container the left one lies in
        const Expr& rhs = *e.rest[0].second;
        if (rhs.kind == ExprKind::Const || rhs.kind == ExprKind::Name) {
            Value left_temp, right_temp;
            const Value& left = eval_ref(*e.first, left_temp);
            const Value& right = eval_ref(rhs, right_temp);
            return equals(left, right) == (e.rest[0].first == CompareOp::Eq);
        }
    }
    Value left = eval(*e.first);
    for (const auto& [op, expr] : e.rest) {
        Value right = eval(*expr);
        bool ok = false;
        switch (op) {
            case CompareOp::Eq:
                ok = equals(left, right);
                break;
            case CompareOp::Ne:
                ok = !equals(left, right);
                break;
            case CompareOp::In:
                ok = contains(*this, right, left);
                break;
            case CompareOp::NotIn:
                ok = !contains(*this, right, left);
                break;
            default: {
                if (left.is_undefined()) raise_undefined(left);
                if (right.is_undefined()) raise_undefined(right);
                auto ordered = [&](const char* sym, auto&& f) {
                    try {
                        return f();
                    } catch (Failure& fail) {
                        if (fail.type == "TypeError")
                            fail.text = std::string("'") + sym +
                                        "' not supported between instances of '" + type_name(left) +
                                        "' and '" + type_name(right) + "'";
                        throw;
                    }
                };
                if (op == CompareOp::Lt)
                    ok = ordered("<", [&] { return less(left, right); });
                else if (op == CompareOp::Gt)
                    ok = ordered(">", [&] { return less(right, left); });
                else if (op == CompareOp::Le)
                    ok = ordered("<=", [&] { return !less(right, left); });
                else
                    ok = ordered(">=", [&] { return !less(left, right); });
            }
        }
        if (!ok) return false;
        left = std::move(right);
    }
    return true;
}

Value Evaluator::eval_slice(const SliceExpr& e) {
    Value obj = eval(*e.object);
    Value start = e.start ? eval(*e.start) : Value::none();
    Value stop = e.stop ? eval(*e.stop) : Value::none();
    Value stepv = e.step ? eval(*e.step) : Value::none();
    return located(e, [&] {
        if (obj.is_undefined()) raise_undefined(obj);
        std::int64_t step = 1;
        if (!stepv.is_none()) {
            if (!stepv.is_int())
                throw Failure("TypeError",
                              "slice indices must be integers or None or have an __index__ method");
            step = stepv.as_int();
            if (step == 0) throw Failure("ValueError", "slice step cannot be zero");
        }
        auto pick = [&](std::int64_t n, auto&& emit) {
            std::int64_t lo, hi;
            slice_indices(n, &start, &stop, step, lo, hi);
            if (step > 0)
                for (std::int64_t i = lo; i < hi; i += step) emit(i);
            else
                for (std::int64_t i = lo; i > hi; i += step) emit(i);
        };
        if (obj.is_string()) {
            const std::string& s = obj.str();
            std::string out;
            if (is_ascii(s)) {
                pick(static_cast<std::int64_t>(s.size()),
                     [&](std::int64_t i) { out += s[static_cast<std::size_t>(i)]; });
            } else {
                auto chars = utf8_chars(s);
                pick(static_cast<std::int64_t>(chars.size()),
                     [&](std::int64_t i) { out += chars[static_cast<std::size_t>(i)]; });
            }
            return Value::string(std::move(out));
        }
        if (obj.is_list()) {
            const auto& items = obj.list().items;
            auto l = make_list({}, obj.list().flavor == List::Flavor::Tuple ? List::Flavor::Tuple
                                                                            : List::Flavor::List);
            pick(static_cast<std::int64_t>(items.size()),
                 [&](std::int64_t i) { l->items.push_back(items[static_cast<std::size_t>(i)]); });
            return Value::list(std::move(l));
        }
        throw Failure("TypeError", "'" + type_name(obj) + "' object is not subscriptable");
    });
}

}  // namespace cmfpipe::jinja2
