// glibc malloc settings for processes that stream batches (coordinator, worker).
#pragma once

#include <cstddef>
#include <cstdint>

namespace fleet::util {

// Traces from this size on are worth a huge-page heap when replayed unpaced (the reader's
// read-ahead starts at the same size); below it, zeroing 2 MiB pages costs more than it saves.
inline constexpr uint64_t kHugeHeapFromTraceBytes = 8ull << 20;

// Keeps freed memory mapped instead of returning it to the kernel after every batch. With the
// defaults, each ~256 KiB batch buffer (compressed or not, ZeroMQ's message copy, the worker's
// decoded frames) was a fresh mmap or a re-grown heap top, so every batch paid its page faults
// again: measured as a third of the coordinator's and workers' CPU on loopback. Memory held
// stays bounded by the peak in use, which credit flow bounds (docs/protocol.md).
void tune_malloc_for_streaming();

// The size from which malloc maps a block of its own (unmapped again at its free): 32 MiB once
// tune_malloc_for_streaming() has run, 0 before (glibc's own threshold moves with the allocation
// history, so nothing can be assumed of it).
size_t heap_block_limit_bytes();

// One malloc arena for all the process's threads. A thread's first allocation otherwise opens
// an arena of its own: fresh address space whose every page is populated or faulted in when
// first used. The embedded replay's end-of-run sort runs half its ops on a helper thread, whose
// arrays then cost ~0.37 ms more of a 100k-record run's ~2.3 ms sort and 40 more page faults
// (docs/benchmarks.md, "The end of a run: sort and exact sums") than when they reuse pages the
// replay freed. Call it first thing in main: glibc fixes the arena limit when a second thread first
// needs an arena, so a later call may do nothing (measured: no gain when called just before the
// sort). For the embedded coordinator, whose threads seldom allocate at once (the read-ahead thread
// allocates nothing; the small allocations of an L2 adapter's I/O threads come from their
// per-thread caches, which need no arena lock). Not for the worker or coordinator-net, whose ZeroMQ
// threads allocate every message while the replay thread allocates its own.
void share_one_malloc_arena();

// Lets the kernel back the heap's next 64 MiB with transparent huge pages: one fault per 2 MiB
// instead of one per 4 KiB page (~10 us each on the VMs measured: an unpaced 100k-record replay
// spent ~3 ms of its ~48 faulting in samples and histograms, docs/benchmarks.md, "Page faults and
// huge pages"). For unpaced runs of large traces only: a huge-page fault zeroes 2 MiB at once, a
// ~130 us stall that a paced replay would report as lateness, and a small run pays more for it than
// it saves. Only the main heap (the arena of the process's first thread) is advised, so call it
// where a huge-page fault cannot delay a paced dispatch (the worker: its protocol thread, not the
// replay thread, which has an arena of its own). Once it has succeeded, later calls do nothing.
void back_heap_with_huge_pages();

}  // namespace fleet::util
