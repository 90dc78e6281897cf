// Global functions. Stateless ones are shared values; cycler/joiner create fresh state per call.
#include "builtins.hpp"

#include <array>
#include <ctime>

#include "evaluator.hpp"
#include "failure.hpp"

namespace cmfpipe::jinja2 {
namespace {

using Fn = Value (*)(Evaluator&, Args&);

struct Builtin final : Callable {
    const char* id;
    Fn fn;
    Builtin(const char* i, Fn f) : id(i), fn(f) {}
    Value call(Evaluator& ev, Args& args) override { return fn(ev, args); }
    std::string name() const override { return id; }
};

Value range_fn(Evaluator& ev, Args& a) {
    if (!a.keyword.empty()) throw Failure("TypeError", "range() takes no keyword arguments");
    std::int64_t start = 0, stop = 0, step = 1;
    switch (a.positional.size()) {
        case 1:
            stop = index_value(a.positional[0]);
            break;
        case 2:
            start = index_value(a.positional[0]);
            stop = index_value(a.positional[1]);
            break;
        case 3:
            start = index_value(a.positional[0]);
            stop = index_value(a.positional[1]);
            step = index_value(a.positional[2]);
            break;
        default:
            throw Failure("TypeError", "range expected at most 3 arguments, got " +
                                           std::to_string(a.positional.size()));
    }
    if (step == 0) throw Failure("ValueError", "range() arg 3 must not be zero");
    long double span = step > 0 ? (static_cast<long double>(stop) - start)
                                : (static_cast<long double>(start) - stop);
    long double count_ld = span <= 0 ? 0
                                     : (span + (std::abs(static_cast<long double>(step)) - 1)) /
                                           std::abs(static_cast<long double>(step));
    if (count_ld > static_cast<long double>(ev.settings().limits.max_list_items))
        throw Failure::limit_exceeded(
            "range of " + std::to_string(static_cast<unsigned long long>(count_ld)) +
            " items exceeds the limit of " + std::to_string(ev.settings().limits.max_list_items));
    auto count = static_cast<std::size_t>(count_ld);
    ev.check_list(count);
    auto l = make_list();
    l->items.reserve(count);
    for (std::size_t i = 0; i < count; ++i)
        l->items.push_back(Value::integer(start + static_cast<std::int64_t>(i) * step));
    return Value::list(std::move(l));
}

Value namespace_fn(Evaluator&, Args& a) {
    auto ns = make_ref<Namespace>();
    ns->attrs.reserve(a.keyword.size() + 2);  // the attributes given, and a set or two later
    for (const auto& p : a.positional) {
        if (!p.is_dict())
            throw Failure("TypeError", "namespace() positional argument must be a mapping");
        for (const auto& [k, v] : p.dict().items) ns->set(name_value(k), v);
    }
    for (const auto& [k, v] : a.keyword) ns->set(k, v);
    return Value::ns(std::move(ns));
}

Value dict_fn(Evaluator& ev, Args& a) {
    auto d = make_ref<Dict>();
    for (const auto& p : a.positional) {
        if (p.is_dict()) {
            for (const auto& [k, v] : p.dict().items) d->set(k, v);
        } else {
            // Held by name: a temporary in a range-for's expression dies before the loop.
            const auto sequence = ev.iterate(p);
            for (const auto& pair : sequence->items) {
                auto kv = ev.iterate(pair);
                if (kv->items.size() != 2)
                    throw Failure("ValueError",
                                  "dictionary update sequence element has wrong length");
                d->set(kv->items[0], kv->items[1]);
            }
        }
    }
    for (const auto& [k, v] : a.keyword) d->set(k, v);
    return Value::dict(std::move(d));
}

Value raise_exception_fn(Evaluator&, Args& a) {
    std::string msg = a.positional.empty() ? std::string() : to_str(a.positional[0]);
    throw Failure("TemplateError", msg);
}

Value strftime_now_fn(Evaluator& ev, Args& a) {
    if (a.positional.empty() || !a.positional[0].is_string())
        throw Failure("TypeError", "strftime_now() argument must be str");
    std::tm t = ev.now();
    const std::string& fmt = a.positional[0].str();
    // strftime gives 0 both for an empty result and for one that does not fit. A format of many
    // long fields (%A%A%A...) is tried again with room for the longest field (%c, a zone name)
    // at every two bytes of it, so it is never cut to an empty string.
    ev.check_string(fmt.size() * 32);
    std::string out(fmt.size() * 4 + 64, '\0');
    std::size_t n = std::strftime(out.data(), out.size(), fmt.c_str(), &t);
    if (n == 0 && !fmt.empty()) {
        out.assign(fmt.size() * 32 + 256, '\0');
        n = std::strftime(out.data(), out.size(), fmt.c_str(), &t);
    }
    out.resize(n);
    return ev.make_string(std::move(out));
}

// joiner(sep): returns "" the first time, then sep.
struct Joiner final : Callable {
    std::string sep;
    bool used = false;
    Value call(Evaluator&, Args&) override {
        if (!used) {
            used = true;
            return Value::string(std::string());
        }
        return Value::string(sep);
    }
    std::string name() const override { return "joiner"; }
};

Value joiner_fn(Evaluator&, Args& a) {
    auto j = make_ref<Joiner>();
    const Value* sep = a.get(0, "sep");
    j->sep = sep ? to_str(*sep) : ", ";
    return Value::callable(std::move(j));
}

// cycler(*items): a namespace-like object with next(), reset() and current.
const std::string kCyclerPos = "__pos";
const std::string kCyclerCurrent = "current";
const std::string kCyclerNext = "next";
const std::string kCyclerReset = "reset";
struct CyclerNext final : Callable {
    Ref<Namespace> state;
    Values items;
    bool reset;
    Value call(Evaluator&, Args&) override {
        const Value* pos = state->find("__pos");
        std::int64_t i = pos ? pos->as_int() : 0;
        if (reset) {
            state->set(Value::borrowed_string(kCyclerPos), Value::integer(0));
            state->set(Value::borrowed_string(kCyclerCurrent),
                       items.empty() ? Value::none() : items[0]);
            return Value::none();
        }
        Value r = items[static_cast<std::size_t>(i)];
        i = (i + 1) % static_cast<std::int64_t>(items.size());
        state->set(Value::borrowed_string(kCyclerPos), Value::integer(i));
        state->set(Value::borrowed_string(kCyclerCurrent), items[static_cast<std::size_t>(i)]);
        return r;
    }
    std::string name() const override { return reset ? "reset" : "next"; }
};

Value cycler_fn(Evaluator&, Args& a) {
    if (a.positional.empty()) throw Failure("RuntimeError", "at least one item has to be provided");
    auto ns = make_ref<Namespace>();
    for (bool reset : {false, true}) {
        auto c = make_ref<CyclerNext>();
        c->state = ns;
        c->items = a.positional;
        c->reset = reset;
        ns->set(Value::borrowed_string(reset ? kCyclerReset : kCyclerNext), Value::callable(c));
    }
    ns->set(Value::borrowed_string(kCyclerCurrent), a.positional[0]);
    ns->set(Value::borrowed_string(kCyclerPos), Value::integer(0));
    return Value::ns(std::move(ns));
}

struct Entry {
    const char* name;
    Fn fn;
    bool chat_only;
};

const std::array<Entry, 7> kEntries = {{
    {"range", range_fn, false},
    {"namespace", namespace_fn, false},
    {"dict", dict_fn, false},
    {"joiner", joiner_fn, false},
    {"cycler", cycler_fn, false},
    {"raise_exception", raise_exception_fn, true},
    {"strftime_now", strftime_now_fn, true},
}};

}  // namespace

int find_builtin(std::string_view name, Profile profile) {
    for (std::size_t i = 0; i < kEntries.size(); ++i) {
        if (name == kEntries[i].name &&
            (!kEntries[i].chat_only || profile == Profile::ChatTemplate))
            return static_cast<int>(i);
    }
    return -1;
}

const Value& builtin_value(int id) {
    // Built once, never freed, seen by every render on every thread: uncounted values.
    static const Values values = [] {
        static std::vector<Builtin> builtins = [] {
            std::vector<Builtin> b;
            b.reserve(kEntries.size());
            for (const auto& e : kEntries) b.emplace_back(e.name, e.fn);
            return b;
        }();
        Values v;
        for (auto& b : builtins) v.push_back(Value::immortal_callable(b));
        return v;
    }();
    return values[static_cast<std::size_t>(id)];
}

}  // namespace cmfpipe::jinja2
