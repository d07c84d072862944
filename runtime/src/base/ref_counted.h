// RefCounted: the intrusive reference count behind every public handle, so that a
// session keeps its plan alive and a plan its instance, whatever order the caller
// releases them in.
#ifndef KILN_RUNTIME_BASE_REF_COUNTED_H
#define KILN_RUNTIME_BASE_REF_COUNTED_H

#include <atomic>
#include <cstdint>
#include <utility>

namespace kiln::rt {

class RefCounted {
public:
  RefCounted() = default;
  RefCounted(const RefCounted &) = delete;
  RefCounted &operator=(const RefCounted &) = delete;
  virtual ~RefCounted() = default;

  void retain() { count_.fetch_add(1, std::memory_order_relaxed); }
  void release() {
    if (count_.fetch_sub(1, std::memory_order_acq_rel) == 1)
      delete this;
  }

private:
  std::atomic<uint32_t> count_{1};
};

/// A strong reference: retains on copy, releases on destruction.
template <class T> class Ref {
public:
  Ref() = default;
  /// Adopts a reference the caller already holds.
  static Ref adopt(T *object) {
    Ref ref;
    ref.object_ = object;
    return ref;
  }
  /// Takes a new reference.
  static Ref share(T *object) {
    if (object)
      object->retain();
    return adopt(object);
  }
  Ref(const Ref &other) : object_(other.object_) {
    if (object_)
      object_->retain();
  }
  Ref(Ref &&other) noexcept : object_(std::exchange(other.object_, nullptr)) {}
  Ref &operator=(Ref other) {
    std::swap(object_, other.object_);
    return *this;
  }
  ~Ref() {
    if (object_)
      object_->release();
  }
  T *get() const { return object_; }
  T *operator->() const { return object_; }
  T &operator*() const { return *object_; }
  explicit operator bool() const { return object_ != nullptr; }
  /// Gives up ownership without releasing.
  T *detach() { return std::exchange(object_, nullptr); }

private:
  T *object_ = nullptr;
};

} // namespace kiln::rt

#endif // KILN_RUNTIME_BASE_REF_COUNTED_H
