#pragma once
// The spec's lambda cases carry their lambdas as code (ruby, perl, js, php, python, clojure,
// lisp, pwsh, go). These are the same functions written in C++, by case name; each case gets
// fresh ones (the "Multiple Calls" lambda counts its calls).
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "engine.hpp"

namespace cmfpipe::testing {

using mustache::Lambda;
using mustache::Lambdas;

inline Lambdas interpolation(std::function<std::string()> f) {
    return {{"lambda", Lambda{std::move(f), {}}}};
}
inline Lambdas section(std::function<std::string(std::string_view)> f) {
    return {{"lambda", Lambda{{}, std::move(f)}}};
}

inline const std::map<std::string, std::function<Lambdas()>>& spec_lambdas() {
    static const std::map<std::string, std::function<Lambdas()>> table = {
        {"Interpolation", [] { return interpolation([] { return std::string("world"); }); }},
        {"Interpolation - Expansion",
         [] { return interpolation([] { return std::string("{{planet}}"); }); }},
        {"Interpolation - Alternate Delimiters",
         [] { return interpolation([] { return std::string("|planet| => {{planet}}"); }); }},
        {"Interpolation - Multiple Calls",
         [] {
             auto calls = std::make_shared<int>(0);
             return interpolation([calls] { return std::to_string(++*calls); });
         }},
        {"Escaping", [] { return interpolation([] { return std::string(">"); }); }},
        {"Section",
         [] {
             return section(
                 [](std::string_view txt) { return std::string(txt == "{{x}}" ? "yes" : "no"); });
         }},
        {"Section - Expansion",
         [] {
             return section([](std::string_view txt) {
                 return std::string(txt) + "{{planet}}" + std::string(txt);
             });
         }},
        {"Section - Alternate Delimiters",
         [] {
             return section([](std::string_view txt) {
                 return std::string(txt) + "{{planet}} => |planet|" + std::string(txt);
             });
         }},
        {"Section - Multiple Calls",
         [] {
             return section([](std::string_view txt) { return "__" + std::string(txt) + "__"; });
         }},
        // The js original returns false; a lambda is truthy, so an inverted section never calls it.
        {"Inverted Section",
         [] { return section([](std::string_view) { return std::string(); }); }},
    };
    return table;
}

}  // namespace cmfpipe::testing
