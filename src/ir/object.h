// Object and Ref: the intrusive, atomically reference-counted base of every IR node.
//
// Nodes are immutable once built, so they can be shared freely between threads (tuning
// compiles candidates in parallel). A Ref is one pointer; `same_as` compares pointers.
#pragma once

#include <atomic>
#include <cstdint>
#include <utility>

namespace tessel::ir {

/// Base of all reference-counted IR objects.
class Object {
 public:
  Object() = default;
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;
  virtual ~Object() = default;

  void inc_ref() const { ref_count_.fetch_add(1, std::memory_order_relaxed); }
  void dec_ref() const {
    if (ref_count_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }

 private:
  mutable std::atomic<int32_t> ref_count_{0};
};

/// An owning handle to an immutable Object of type T (or derived).
template <class T>
class Ref {
 public:
  Ref() = default;
  Ref(std::nullptr_t) {}
  explicit Ref(const T* p) : ptr_(p) {
    if (ptr_) ptr_->inc_ref();
  }
  Ref(const Ref& o) : ptr_(o.ptr_) {
    if (ptr_) ptr_->inc_ref();
  }
  Ref(Ref&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)) {}
  template <class U>
  Ref(const Ref<U>& o) : Ref(static_cast<const T*>(o.get())) {}
  ~Ref() {
    if (ptr_) ptr_->dec_ref();
  }
  Ref& operator=(Ref o) noexcept {
    std::swap(ptr_, o.ptr_);
    return *this;
  }

  const T* get() const { return ptr_; }
  const T* operator->() const { return ptr_; }
  const T& operator*() const { return *ptr_; }
  bool defined() const { return ptr_ != nullptr; }
  explicit operator bool() const { return ptr_ != nullptr; }
  bool same_as(const Ref& o) const { return ptr_ == o.ptr_; }

 private:
  const T* ptr_ = nullptr;
};

/// Builds a node of type T and returns a handle to it.
template <class T, class... Args>
Ref<T> make_ref(Args&&... args) {
  return Ref<T>(new T(std::forward<Args>(args)...));
}

}  // namespace tessel::ir
