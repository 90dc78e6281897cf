#pragma once
// A move-only void(Arg) callable that keeps a small capture inline (a shared_ptr and a little
// more: `Room` bytes). std::function allocates for every capture that is not trivially copyable:
// the router's completion of each request (it holds the session's shared_ptr) cost an allocation
// so. A larger callable goes to the heap, as it would have.
#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace cmfpipe::serve {

template <class Arg, std::size_t Room = 48>
class InlineCallback {
  public:
    InlineCallback() = default;
    template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, InlineCallback>>>
    InlineCallback(F&& f) {  // NOLINT: converting, as std::function's
        using Fn = std::decay_t<F>;
        if constexpr (fits<Fn>) {
            ::new (static_cast<void*>(storage_)) Fn(std::forward<F>(f));
            ops_ = &inline_ops<Fn>;
        } else {
            *reinterpret_cast<Fn**>(storage_) = new Fn(std::forward<F>(f));
            ops_ = &heap_ops<Fn>;
        }
    }
    InlineCallback(InlineCallback&& other) noexcept { take(other); }
    InlineCallback& operator=(InlineCallback&& other) noexcept {
        if (this != &other) {
            reset();
            take(other);
        }
        return *this;
    }
    InlineCallback(const InlineCallback&) = delete;
    InlineCallback& operator=(const InlineCallback&) = delete;
    ~InlineCallback() { reset(); }

    explicit operator bool() const { return ops_ != nullptr; }
    // Const as std::function's: the callable itself may change (a mutable lambda). The argument
    // goes through as an rvalue reference: a callable that takes it so is given it unmoved.
    void operator()(Arg&& arg) const { ops_->call(storage_, std::move(arg)); }

  private:
    static constexpr std::size_t room = Room;
    template <class Fn>
    static constexpr bool fits =
        sizeof(Fn) <= room &&
        alignof(Fn) <= alignof(std::max_align_t) && std::is_nothrow_move_constructible_v<Fn>;
    struct Ops {
        void (*call)(void* storage, Arg&& arg);
        void (*relocate)(void* from, void* to) noexcept;  // moved to `to`, `from` destroyed
        void (*destroy)(void* storage) noexcept;
    };
    template <class Fn>
    static constexpr Ops inline_ops{
        [](void* storage, Arg&& arg) { (*static_cast<Fn*>(storage))(std::move(arg)); },
        [](void* from, void* to) noexcept {
            ::new (to) Fn(std::move(*static_cast<Fn*>(from)));
            static_cast<Fn*>(from)->~Fn();
        },
        [](void* storage) noexcept { static_cast<Fn*>(storage)->~Fn(); }};
    template <class Fn>
    static constexpr Ops heap_ops{
        [](void* storage, Arg&& arg) { (**static_cast<Fn**>(storage))(std::move(arg)); },
        [](void* from, void* to) noexcept { *static_cast<Fn**>(to) = *static_cast<Fn**>(from); },
        [](void* storage) noexcept { delete *static_cast<Fn**>(storage); }};

    void take(InlineCallback& other) noexcept {
        ops_ = other.ops_;
        if (ops_) ops_->relocate(other.storage_, storage_);
        other.ops_ = nullptr;
    }
    void reset() noexcept {
        if (ops_) ops_->destroy(storage_);
        ops_ = nullptr;
    }

    alignas(std::max_align_t) mutable unsigned char storage_[room];
    const Ops* ops_ = nullptr;
};

}  // namespace cmfpipe::serve
