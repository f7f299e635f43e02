// Untrusted input: a saved routing plan (--route-cache DIR, plan/route_cache.h), opened and
// streamed to its end as a run would. Half the inputs are whole files (magic, key, footer: the
// checks before the checksum); the other half are entries and metadata that the target wraps
// in a valid header, footer and checksum, so the entry and metadata parsers see them.
// A refusal (nullptr and a reason) or std::runtime_error from a cursor are expected; any crash,
// sanitizer report, other exception, leak, hang or out-of-memory is a bug.
#include <spdlog/spdlog.h>
#include <stdlib.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "fleet/plan/route_cache.h"

namespace {

struct Setup {
  std::string dir;
  fleet::plan::RoutePlanKey key;
  fleet::plan::RoutePlanReader::Limits limits;
  Setup() {
    // The reader opens DIR/NAME: a directory in memory when there is one (no disk per run).
    const std::filesystem::path base = std::filesystem::is_directory("/dev/shm")
                                           ? "/dev/shm"
                                           : std::filesystem::temp_directory_path();
    std::string tmpl = (base / "fleet-fuzz-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) std::abort();
    dir = tmpl;
    const std::string trace = dir + "/t.lct";
    std::ofstream(trace) << std::string(4096, 'x');
    fleet::plan::RouterOptions o;
    o.mode = fleet::plan::ShardMode::Key;
    o.worker_names = {"a", "b", "c"};
    key = fleet::plan::route_plan_key(trace, "digest", o, 1u << 20).value();
    limits.trace_size = 1u << 20;
    limits.workers = 3;
    limits.max_frame_bytes = 64u << 10;
  }
  ~Setup() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

void put_le(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}

// Byte 0 odd: the rest is the whole file. Even: bytes 1-2 are the metadata's length (LE,
// clamped), the rest the entries then the metadata; header, footer and checksum are added.
std::string plan_file(const Setup& s, const uint8_t* data, size_t size) {
  if (size == 0) return {};
  if (data[0] & 1) return std::string(reinterpret_cast<const char*>(data) + 1, size - 1);
  const size_t head = std::min<size_t>(size, 3);
  const std::string rest(reinterpret_cast<const char*>(data) + head, size - head);
  size_t meta_len = size >= 3 ? (data[1] | (size_t{data[2]} << 8)) : 0;
  meta_len = std::min(meta_len, rest.size());
  const size_t entries_bytes = rest.size() - meta_len;
  std::string f = "FRPLAN01";
  put_le(f, s.key.text.size(), 4);
  f += s.key.text;
  f += rest;
  const uint64_t checksum = fleet::plan::route_plan_checksum(f.data(), f.size());
  put_le(f, entries_bytes, 8);
  put_le(f, entries_bytes / 16, 8);
  put_le(f, meta_len, 8);
  put_le(f, checksum, 8);
  f += "FRPLEND1";
  return f;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Setup s;
  {
    std::ofstream out(s.dir + "/" + s.key.file_name, std::ios::binary | std::ios::trunc);
    const std::string f = plan_file(s, data, size);
    out.write(f.data(), static_cast<std::streamsize>(f.size()));
  }
  auto opened = fleet::plan::RoutePlanReader::open(s.dir, s.key, s.limits);
  if (!opened.ok() || !opened.value()) return 0;
  auto& plan = opened.value();
  fleet::plan::RoutePlanReader::Cursor cursor = plan->cursor();
  fleet::plan::SavedRoute route;
  try {
    while (cursor.next(route)) {
    }
  } catch (const std::runtime_error&) {
  }
  return 0;
}
