// Writing a run's output files. A file from an earlier run is replaced by a new inode instead of
// being truncated in place: ext4 (auto_da_alloc) starts writing back a truncated or renamed-over
// file's new data at once, which cost a small run ~2 ms of its ~10 (docs/benchmarks.md,
// "Start-up: where the fixed cost goes").
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "fleet/util/status.h"

namespace fleet::util {

// Makes room for a fresh PATH: an existing regular file with one link is unlinked. Anything
// else (a symlink, a hard-linked file, /dev/stdout, a FIFO) is left for open's O_TRUNC, so
// what the user pointed the path at still receives the data.
void unlink_for_rewrite(const std::string& path);

// PATH holds exactly PIECES, written with one writev, or an error naming PATH.
Status write_whole_file(const std::string& path, const std::vector<std::string_view>& pieces);

// The same, but a reader never sees a partial PATH: written to PATH.tmp and renamed over it.
Status write_file_atomically(const std::string& path, const std::vector<std::string_view>& pieces);

// fopen(PATH, "wb") after unlink_for_rewrite, for files written as a run goes; nullptr and errno
// as fopen on failure.
std::FILE* open_for_rewrite(const std::string& path);

}  // namespace fleet::util
