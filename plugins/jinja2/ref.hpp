#pragma once
// The engine's shared ownership: a count inside the object (no control block) and no atomics.
// A value never leaves the render that made it, and a render runs on one thread. Whatever several
// renders see at once (a compiled template's constants, the builtins) is referred to uncounted
// (Value::borrowed_string, Value::immortal_callable), never through a Ref.
#include <cstddef>
#include <cstdint>
#include <utility>

#include "pool.hpp"

namespace cmfpipe::jinja2 {

// The count every shared engine object carries. A copy of an object is a new object: its count
// starts again at its one owner.
struct Shared : Pooled {
    Shared() = default;
    Shared(const Shared&) {}
    Shared& operator=(const Shared&) { return *this; }
    mutable std::uint32_t refs = 1;
};

// One owner of a T (a Shared made by make_ref); the last owner to go deletes it.
template <class T>
class Ref {
  public:
    Ref() = default;
    Ref(std::nullptr_t) {}
    Ref(const Ref& other) : p_(other.p_) { retain(); }
    Ref(Ref&& other) noexcept : p_(std::exchange(other.p_, nullptr)) {}
    template <class U>
    Ref(const Ref<U>& other) : p_(other.get()) {
        retain();
    }
    template <class U>
    Ref(Ref<U>&& other) noexcept : p_(other.release()) {}
    Ref& operator=(Ref other) noexcept {
        std::swap(p_, other.p_);
        return *this;
    }
    ~Ref() {
        if (p_ && --p_->refs == 0) delete p_;
    }

    // Takes over p's count (p fresh from new: its one owner is now this Ref).
    static Ref adopt(T* p) {
        Ref r;
        r.p_ = p;
        return r;
    }
    // One more owner of p.
    static Ref share(T* p) {
        Ref r;
        r.p_ = p;
        r.retain();
        return r;
    }
    // Gives up ownership without dropping the count: the caller now holds it.
    T* release() { return std::exchange(p_, nullptr); }

    T* get() const { return p_; }
    T& operator*() const { return *p_; }
    T* operator->() const { return p_; }
    explicit operator bool() const { return p_ != nullptr; }

  private:
    void retain() {
        if (p_) ++p_->refs;
    }
    T* p_ = nullptr;
};

template <class T, class... Args>
Ref<T> make_ref(Args&&... args) {
    return Ref<T>::adopt(new T(std::forward<Args>(args)...));
}

}  // namespace cmfpipe::jinja2
