// Reads a regular file ahead of its consumer on a helper thread, into a small ring of blocks.
// The kernel's copy out of the page cache is about a third of a replay's decode loop on a 1 KB-
// record trace; on a second core it overlaps with the decoding instead of preceding it
// (docs/benchmarks.md, "Read-ahead and the reader's buffer"). FrameReader uses it for large regular
// files.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace fleet::trace {

class ReadAhead {
 public:
  // One filled block. `data` has `headroom` writable bytes before it (room for the consumer to
  // put an unfinished frame's start in front of its continuation). len == 0 at the end of the
  // file; error != 0 (an errno) when read(2) failed at file offset `offset`.
  struct Block {
    uint8_t* data = nullptr;
    size_t len = 0;
    uint64_t offset = 0;
    int error = 0;
    size_t slot = 0;
  };

  // Starts reading FD (not owned; it must outlive this) from its current offset.
  ReadAhead(int fd, size_t block_bytes, size_t headroom, size_t blocks);
  ~ReadAhead();  // stops the helper and waits for it
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;

  size_t headroom() const { return headroom_; }
  // The next block in file order, waiting for it if the helper is behind. At most blocks - 1
  // may be held at once; the end-of-file or error block repeats once reached.
  Block acquire();
  // Hands a block acquired earlier back for refilling (blocks are released in order).
  void release(const Block& b);

 private:
  void run();

  const int fd_;
  const size_t block_bytes_;
  const size_t headroom_;
  const size_t resume_below_;  // a helper waiting on a full ring resumes at this many in use
  // blocks x (headroom + block_bytes), in one mapping: 2 MiB-aligned huge pages when it is 1 MiB
  // or more (util/huge_page_allocator.h), one page fault on the helper instead of hundreds.
  uint8_t* storage_ = nullptr;
  size_t storage_bytes_ = 0;
  size_t blocks_ = 0;
  std::vector<Block> filled_;  // per slot, valid for sequence numbers in [consumed_, produced_)

  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t produced_ = 0;  // blocks filled
  uint64_t acquired_ = 0;  // blocks handed to the consumer
  uint64_t released_ = 0;  // blocks handed back
  bool finished_ = false;  // the helper filled its last block (end or error)
  bool stop_ = false;
  bool helper_waiting_ = false;  // notify only a thread that sleeps
  bool consumer_waiting_ = false;
  std::thread helper_;
};

}  // namespace fleet::trace
