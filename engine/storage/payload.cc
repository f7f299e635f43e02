#include "fleet/engine/payload.h"

#include <algorithm>
#include <mutex>

namespace fleet::storage {

std::shared_ptr<const char[]> zero_payload(size_t size) {
  static std::mutex mu;
  static std::shared_ptr<char[]> buf;
  static size_t cap = 0;
  std::lock_guard<std::mutex> g(mu);
  if (size > cap || !buf) {
    size_t n = std::max<size_t>(size, 1 << 20);
    buf = std::shared_ptr<char[]>(new char[n]());
    cap = n;
  }
  return buf;
}

}  // namespace fleet::storage
