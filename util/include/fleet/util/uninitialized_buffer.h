// A byte vector whose growth does not zero the new bytes: for buffers that read(2) fills right
// away. Zeroing first would touch (and fault in) every page twice, and a fresh page costs a
// few microseconds on the VMs this runs on.
#pragma once

#include <cstdint>
#include <memory>
#include <new>
#include <vector>

namespace fleet::util {

template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  using std::allocator<T>::allocator;
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;  // default-initialised: left as it is for bytes
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    std::allocator_traits<std::allocator<T>>::construct(static_cast<std::allocator<T>&>(*this), p,
                                                        std::forward<Args>(args)...);
  }
};

using UninitializedBytes = std::vector<uint8_t, DefaultInitAllocator<uint8_t>>;

}  // namespace fleet::util
