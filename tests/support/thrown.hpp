#pragma once
// What an action throws, as text, so that a test can assert the exact message.
#include <string>
#include <string_view>
#include <utility>

#include "cmfpipe/errors.hpp"

namespace cmfpipe::testing {

// The what() of the E that `action` throws, or `none` when it throws nothing.
template <class E = Error, class Action>
std::string thrown_message(Action&& action, std::string_view none = "(no error)") {
    try {
        std::forward<Action>(action)();
    } catch (const E& e) {
        return e.what();
    }
    return std::string(none);
}

// "Kind: what()" of the cmfpipe::Error that `action` throws ("ValueError: f.prompty:3:1: ..."),
// or "(no error)".
template <class Action>
std::string thrown_error(Action&& action) {
    try {
        std::forward<Action>(action)();
    } catch (const Error& e) {
        return std::string(e.kind()) + ": " + e.what();
    }
    return "(no error)";
}

}  // namespace cmfpipe::testing
