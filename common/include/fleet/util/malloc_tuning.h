// glibc malloc settings for processes that stream batches (coordinator, worker).
#pragma once

namespace fleet::util {

// Keeps freed memory mapped instead of returning it to the kernel after every batch. With the
// defaults, each ~256 KiB batch buffer (compressed or not, ZeroMQ's message copy, the worker's
// decoded frames) was a fresh mmap or a re-grown heap top, so every batch paid its page faults
// again: measured as a third of the coordinator's and workers' CPU on loopback. Memory held
// stays bounded by the peak in use, which credit flow bounds (docs/protocol.md).
void tune_malloc_for_streaming();

}  // namespace fleet::util
