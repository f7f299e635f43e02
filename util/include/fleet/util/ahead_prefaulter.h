// Populates the pages of a few growing arrays just ahead of where their owner writes, on a
// thread of its own (util/prefault.h's MADV_POPULATE_WRITE, which changes no contents): on a
// VM that backs memory on first touch, zeroing a fresh page costs its first writer ~3 ms per
// MiB (docs/benchmarks.md, "L2 replay"), and this moves that cost to the other core, where it
// runs beside the owner's work instead of inside it. The L2 plan's operations array is the
// user (l2_plan.cc), filled while the reader's thread leaves part of the other core idle.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace fleet::util {

class AheadPrefaulter {
 public:
  // Keeps up to `ahead_bytes` populated past each array's end; `arrays` arrays, by index.
  AheadPrefaulter(size_t arrays, size_t ahead_bytes);
  ~AheadPrefaulter();  // stops the thread and joins it
  AheadPrefaulter(const AheadPrefaulter&) = delete;
  AheadPrefaulter& operator=(const AheadPrefaulter&) = delete;

  // Array `i` is [data, data + capacity_bytes), written up to used_bytes. When the owner moves
  // the array (a vector outgrowing its reserve), the thread may still populate a page of the
  // old range once: harmless, populating writes nothing. `expected_bytes` is how far the owner
  // expects to write in all (a projection): nothing past it is populated, so that the last
  // `ahead_bytes` of each array are not zeroed for nothing.
  void publish(size_t i, const void* data, size_t used_bytes, size_t capacity_bytes,
               size_t expected_bytes = SIZE_MAX);

 private:
  struct Array {
    const char* data = nullptr;
    size_t used = 0;
    size_t capacity = 0;
    size_t populated = 0;  // of `data`: [0, populated) done or already written by the owner
    size_t expected = SIZE_MAX;
  };
  // Where array `a` should be populated up to now.
  size_t target(const Array& a) const;
  // The next range to populate, or false when every array is far enough ahead.
  bool next_range(const char*& from, size_t& bytes);
  void run();

  const size_t ahead_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::vector<Array> arrays_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace fleet::util
