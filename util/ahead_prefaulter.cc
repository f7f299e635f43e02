#include "fleet/util/ahead_prefaulter.h"

#include <algorithm>

#include "fleet/util/huge_page_allocator.h"
#include "fleet/util/prefault.h"

namespace fleet::util {

AheadPrefaulter::AheadPrefaulter(size_t arrays, size_t ahead_bytes)
    : ahead_(ahead_bytes), arrays_(arrays) {
  thread_ = std::thread([this] { run(); });
}

AheadPrefaulter::~AheadPrefaulter() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

size_t AheadPrefaulter::target(const Array& a) const {
  // The expected end rounded up to a whole huge page: a page is populated in one call.
  const size_t expected = a.expected > SIZE_MAX - kHugePage
                              ? SIZE_MAX
                              : (a.expected + kHugePage - 1) / kHugePage * kHugePage;
  return std::min({a.capacity, a.used + ahead_, std::max(expected, a.used)});
}

void AheadPrefaulter::publish(size_t i, const void* data, size_t used_bytes, size_t capacity_bytes,
                              size_t expected_bytes) {
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Array& a = arrays_[i];
    if (a.data != data) a.populated = 0;  // moved: a new range, nothing of it done yet
    a.data = static_cast<const char*>(data);
    a.used = used_bytes;
    a.capacity = capacity_bytes;
    a.populated = std::max(a.populated, used_bytes);
    a.expected = expected_bytes;
    // Woken only once half of the populated slack is used: a wake-up is a system call on each
    // side (on this VM's paravirtual kernel, 2-3 % of the L2 plan's samples at one per batch),
    // and the thread then populates the whole `ahead` again.
    const size_t want = target(a);
    wake = want > a.populated && (want - a.populated >= ahead_ / 2 || want == a.capacity);
  }
  if (wake) wake_.notify_one();
}

bool AheadPrefaulter::next_range(const char*& from, size_t& bytes) {
  Array* lagging = nullptr;  // the array with the least populated ahead of its end
  for (Array& a : arrays_) {
    if (a.data == nullptr || a.populated >= target(a)) continue;
    if (lagging == nullptr || a.populated - a.used < lagging->populated - lagging->used)
      lagging = &a;
  }
  if (lagging == nullptr) return false;
  // One huge page at a time, so the owner's next publish is seen between them.
  const size_t want = target(*lagging);
  from = lagging->data + lagging->populated;
  bytes = std::min(want - lagging->populated, kHugePage);
  lagging->populated += bytes;
  return true;
}

void AheadPrefaulter::run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    const char* from = nullptr;
    size_t bytes = 0;
    if (!next_range(from, bytes)) {
      wake_.wait(lock);
      continue;
    }
    lock.unlock();
    prefault_writable(const_cast<char*>(from), bytes);
    lock.lock();
  }
}

}  // namespace fleet::util
