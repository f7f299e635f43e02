// Files that hold secrets (a CURVE secret certificate, an L2 password): read only when no one
// but their owner can read them, as ssh treats its private keys, with a size limit so a wrong
// path (a log, a device) is refused instead of read whole.
#pragma once

#include <cstddef>
#include <string>

#include "fleet/util/status.h"

namespace fleet::security {

// The contents of `path`, or an error naming `what` (e.g. "--curve-cert"), the file and the
// reason: not a regular file, readable or writable by group or others (with its mode and the
// chmod that fixes it), larger than `max_bytes`, unreadable.
Result<std::string> read_private_file(const std::string& path, const std::string& what,
                                      size_t max_bytes = 64 * 1024);

// The contents of a file that need not be private (a public certificate, a key list), with the
// same regular-file and size checks.
Result<std::string> read_small_file(const std::string& path, const std::string& what,
                                    size_t max_bytes = 64 * 1024);

}  // namespace fleet::security
