// The interpreter's entry: a render sets up the template's module from the JSON inputs, runs the
// body (or the extends chain) into one output buffer, and accounts every byte to the sandbox.
// Scoping follows Jinja: the top level of a template is the module; for, macro, call, filter
// and with bodies get their own frame; if bodies do not.
#include "evaluator.hpp"

#include <algorithm>

namespace cmfpipe::jinja2 {

// ----- JSON input -----

static Value from_json_at(const Json& j, int depth);

Value from_json(const Json& j) {
    return from_json_at(j, 0);
}

// Flattened: the vectors' reserve and emplace are inlined here, on every input of every render.
[[gnu::flatten]] static Value from_json_at(const Json& j, int depth) {
    check_depth(depth, kMaxValueDepth, "input nested", " levels");
    switch (j.type()) {
        case Json::value_t::null:
            return Value::none();
        case Json::value_t::boolean:
            return Value::boolean(j.get<bool>());
        case Json::value_t::number_integer:
            return Value::integer(j.get<std::int64_t>());
        case Json::value_t::number_unsigned: {
            auto u = j.get<std::uint64_t>();
            if (u > static_cast<std::uint64_t>(INT64_MAX))
                return Value::real(static_cast<double>(u));
            return Value::integer(static_cast<std::int64_t>(u));
        }
        case Json::value_t::number_float:
            return Value::real(j.get<double>());
        case Json::value_t::string:
            return Value::borrowed_string(j.get_ref<const std::string&>());
        case Json::value_t::array: {
            auto l = make_ref<List>();
            l->items.reserve(j.size());
            for (const auto& e : j) l->items.push_back(from_json_at(e, depth + 1));
            return Value::list(std::move(l));
        }
        case Json::value_t::object: {
            auto d = make_ref<Dict>();
            d->items.reserve(j.size());
            for (const auto& [k, v] : j.get_ref<const Json::object_t&>())
                d->items.emplace_back(Value::borrowed_string(k), from_json_at(v, depth + 1));
            return Value::dict(std::move(d));
        }
        default:
            return Value::none();
    }
}

// ----- errors -----

void Evaluator::fail_iterations() {
    throw Failure::limit_exceeded("more than " + std::to_string(settings_.limits.max_iterations) +
                                  " loop iterations / produced items");
}
void Evaluator::fail_string(std::size_t bytes) {
    throw Failure::limit_exceeded("string of " + std::to_string(bytes) +
                                  " bytes exceeds the limit of " +
                                  std::to_string(settings_.limits.max_string_bytes));
}
void Evaluator::fail_list(std::size_t items) {
    throw Failure::limit_exceeded("sequence of " + std::to_string(items) +
                                  " items exceeds the limit of " +
                                  std::to_string(settings_.limits.max_list_items));
}
void Evaluator::fail_allocated() {
    throw Failure::limit_exceeded("strings created by the template exceed " +
                                  std::to_string(settings_.limits.max_allocated_bytes) + " bytes");
}
void Evaluator::fail_output() {
    throw Failure::limit_exceeded("output exceeds " +
                                  std::to_string(settings_.limits.max_output_bytes) + " bytes");
}

// ----- rendering -----

// The most a render reserves for its output from the last one's size; beyond it the string grows.
constexpr std::size_t kOutputReserveCap = std::size_t{1} << 20;

void Evaluator::fill_module(Module& mod, std::shared_ptr<const Template> tpl, bool with_context) {
    mod.vars.resize(tpl->symbols.size());
    mod.bound.resize(tpl->symbols.size());
    if (with_context && inputs_) {
        for (const auto& [key, value] : inputs_->items()) {
            int slot = tpl->slot_of(key);
            if (slot >= 0) {
                mod.vars[slot] = from_json(value);
                mod.bound[slot] = true;
            }
        }
    }
    mod.tpl = std::move(tpl);
}

std::unique_ptr<Module> Evaluator::make_module(std::shared_ptr<const Template> tpl,
                                               bool with_context) {
    auto mod = std::make_unique<Module>();
    fill_module(*mod, std::move(tpl), with_context);
    return mod;
}

std::string Evaluator::render(const std::shared_ptr<const Template>& tpl, const Json& inputs) {
    profile_ = tpl->profile;
    inputs_ = &inputs;
    fill_module(root_, tpl, true);
    module_ = &root_;
    std::string out;
    std::size_t expected = tpl->last_output_size.load(std::memory_order_relaxed);
    out.reserve(expected ? std::min(expected + expected / 8, kOutputReserveCap) : 1024);
    out_ = &out;
    if (tpl->has_extends)
        render_extended(tpl, out);
    else
        exec_body(tpl->body);
    tpl->last_output_size.store(out.size(), std::memory_order_relaxed);
    // A render much shorter than the last one does not hand its caller the last one's capacity.
    if (out.capacity() > 2 * out.size() + 4096) out.shrink_to_fit();
    return out;
}

void Evaluator::release_held() {
    held_for_ = nullptr;
    Value v = std::move(held_);
    out_->append(v.str());
    check_output();
}

void Evaluator::write_value(const Value& v) {
    switch (v.kind()) {
        case Kind::String:
            write(v.str());
            return;
        case Kind::Undefined:
            return;  // an undefined value prints as nothing (using it otherwise raises)
        default:
            settle_held();
            append_str(*out_, v);
            check_output();
            return;
    }
}

std::string Evaluator::capture(const Body& body) {
    std::string buffer;
    {
        Restore restore(*this);
        out_ = &buffer;
        exec_body(body);
    }
    check_string(buffer.size());
    return buffer;
}

}  // namespace cmfpipe::jinja2
