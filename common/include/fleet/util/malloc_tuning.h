// glibc malloc settings for processes that stream batches (coordinator, worker).
#pragma once

namespace fleet::util {

// Keeps freed memory mapped instead of returning it to the kernel after every batch. With the
// defaults, each ~256 KiB batch buffer (compressed or not, ZeroMQ's message copy, the worker's
// decoded frames) was a fresh mmap or a re-grown heap top, so every batch paid its page faults
// again: measured as a third of the coordinator's and workers' CPU on loopback. Memory held
// stays bounded by the peak in use, which credit flow bounds (docs/protocol.md).
void tune_malloc_for_streaming();

// Lets the kernel back the heap's next 64 MiB with transparent huge pages: one fault per 2 MiB
// instead of one per 4 KiB page (~10 us each on the VMs measured: an unpaced 100k-record replay
// spent ~3 ms of its ~48 faulting in samples and histograms, docs/benchmarks.md). For unpaced
// runs of large traces only: a huge-page fault zeroes 2 MiB at once, a ~130 us stall that a
// paced replay would report as lateness, and a small run pays more for it than it saves.
// Only the first call reserves; later ones do nothing. Arenas of other threads are not touched.
void back_heap_with_huge_pages();

}  // namespace fleet::util
