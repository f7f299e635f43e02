// Lines of a text file someone else wrote (a run directory's misses.csv or timeseries), read
// with a bound: std::getline grows its string to the whole line first, so one endless line
// (/dev/zero behind a symlink, or 400 MB without a newline) cost all of its bytes in memory
// before any length check could refuse it.
#pragma once

#include <istream>
#include <string>

namespace fleet::util {

// The next line into `line`, without its '\n' (a '\r' before it is kept): false at the end of
// the input. A line longer than `max_bytes` sets `too_long` (and `line` holds its first
// max_bytes + 1 bytes); nothing more of it is read.
inline bool read_line_bounded(std::istream& in, std::string& line, size_t max_bytes,
                              bool& too_long) {
  too_long = false;
  line.resize(max_bytes + 2);
  in.getline(line.data(), static_cast<std::streamsize>(max_bytes + 2));
  const auto got = static_cast<size_t>(in.gcount());  // the '\n' included, when it was read
  if (got == 0 && in.eof()) return false;
  if (in.fail() && !in.eof()) {  // the buffer filled before a '\n'
    too_long = true;
    line.resize(max_bytes + 1);
    return true;
  }
  line.resize(in.eof() ? got : got - 1);
  too_long = line.size() > max_bytes;
  return true;
}

}  // namespace fleet::util
