// Saved routing plans (`--route-cache DIR`, docs/sharding.md "Saved routing plans"): a sharded
// run that routes a trace live writes every route it sends, as 16-byte references in trace
// order, to DIR; the next run of the same trace with the same routing options streams those
// references instead of reading and routing the trace again, as btreplay replays the bunches
// btrecord sorted once. The coordinator then neither copies the trace out of the page cache
// nor decodes a key (docs/benchmarks.md, "Saved routing plans": that was its whole per-record
// cost).
//
// A plan is found by a key that names everything routing depends on: the trace file's identity
// (device, inode, size, modification and change times, header digest), the routing options,
// the reader's frame limit and this build's plan format. The file holds the whole key and a
// checksum; a plan whose key, size, checksum or any entry does not check out is not used.
//
// File layout (little-endian): "FRPLAN01", u32 key length, the key, the entries, the run's
// metadata (JSON, for its report), then a 40-byte footer: u64 entries' bytes, u64 entry count,
// u64 metadata bytes, u64 checksum of everything before the footer, "FRPLEND1".
// An entry: u64 frame offset, u32 body length, u16 worker, u16 flags, then a f64 time shift
// (kHasShift) and a u16 key count K with ceil(K/8) mask bytes (kHasMask).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "fleet/plan/shard_router.h"
#include "fleet/util/status.h"

namespace fleet::plan {

inline constexpr uint16_t kRouteFirstOfRecord = 1;  // the record's first route
inline constexpr uint16_t kRouteAllWorkers = 2;     // --shard none: every worker, one batch
inline constexpr uint16_t kRouteSplitPart = 4;      // a part of a split call
inline constexpr uint16_t kRouteHasShift = 8;
inline constexpr uint16_t kRouteHasMask = 16;

// One saved route: a reference to a frame of the trace, for one worker (or all).
struct SavedRoute {
  uint64_t file_offset = 0;
  uint32_t body_size = 0;
  uint16_t worker = 0;
  uint16_t flags = 0;
  double t_shift = 0.0;
  uint16_t mask_keys = 0;
  std::string_view key_mask;  // valid until the next read
};

// What a plan is valid for; an error naming the trace when it cannot be stat'ed.
struct RoutePlanKey {
  std::string text;       // every input, one per line
  std::string file_name;  // derived from `text`: 16 hex digits + ".route"
};
Result<RoutePlanKey> route_plan_key(const std::string& trace_path, const std::string& header_digest,
                                    const RouterOptions& options, uint64_t max_frame_bytes);

// The footer's checksum of `n` bytes (a plan built by hand: the fuzz target).
uint64_t route_plan_checksum(const char* p, size_t n);

// DIR is usable for plans: created (0700) when missing; otherwise a directory owned by this
// user that no one else can write (a plan decides what every worker replays). The error names
// --route-cache, the path and the chmod that fixes it.
Status check_route_cache_dir(const std::string& dir);

class RouteChecksum;

// Writes a plan as a live run routes (into a private temporary file in DIR), and puts it in
// place only when the run saw the whole trace (commit).
class RoutePlanWriter {
 public:
  // A writer on a new private temporary file in DIR, or an error naming the file when it
  // cannot be created.
  static Result<std::unique_ptr<RoutePlanWriter>> create(const std::string& dir, RoutePlanKey key);
  ~RoutePlanWriter();  // removes the temporary file unless committed
  RoutePlanWriter(const RoutePlanWriter&) = delete;
  RoutePlanWriter& operator=(const RoutePlanWriter&) = delete;

  // One route of the record at `file_offset`; routes of one record in a row.
  void add(const Route& route, uint64_t file_offset, bool first_of_record, bool all_workers);
  // Every route of the record at `file_offset`, as ShardRouter::route gave them; `all_workers`
  // (--shard none): one entry stands for every worker.
  void add_record(const std::vector<Route>& routes, uint64_t file_offset, bool all_workers);
  // The plan cannot describe this run (e.g. a part re-encoded inline); nothing is saved.
  void abandon(std::string why);
  bool abandoned() const { return !why_abandoned_.empty(); }
  const std::string& why_abandoned() const { return why_abandoned_; }
  // The metadata, the footer, then an atomic rename to DIR/key.file_name. Returns the path.
  Result<std::string> commit(const nlohmann::json& meta);

 private:
  RoutePlanWriter(std::string dir, RoutePlanKey key, std::string tmp_path, std::FILE* file);
  void put(const void* p, size_t n);
  void flush_buffer();

  std::string dir_, tmp_path_;
  RoutePlanKey key_;
  std::FILE* file_ = nullptr;
  std::string buf_;
  std::unique_ptr<RouteChecksum> checksum_;  // of every byte written, in order
  uint64_t entries_bytes_ = 0, entries_ = 0;
  std::string why_abandoned_;
  bool committed_ = false;
};

// Reads a plan back. open() checks the whole file first (key, layout, checksum, every entry
// against the trace's size, the worker count and the frame limit), so a plan that is used is
// used whole; a cursor then streams the entries.
class RoutePlanReader {
 public:
  struct Limits {
    uint64_t trace_size = 0;
    int workers = 0;
    uint64_t max_frame_bytes = 0;
    // Walk every entry in open() (a plan that is used is used whole). False: open() checks the
    // key, layout, checksum and metadata, and each entry is checked only as a cursor reads it
    // (a worker reading a plan the coordinator has already walked against the same limits).
    bool walk_entries = true;
  };
  // The plan for `key` in DIR; null when none is saved; an error saying why a saved one cannot
  // be used (unreadable, damaged, made for another routing, outside the limits).
  static Result<std::unique_ptr<RoutePlanReader>> open(const std::string& dir,
                                                       const RoutePlanKey& key,
                                                       const Limits& limits);
  // The same checks on the plan at `path` for the key `key_text`: what a worker that reads
  // the plan itself opens (the coordinator names the file and its key in START).
  static Result<std::unique_ptr<RoutePlanReader>> open_path(const std::string& path,
                                                            const std::string& key_text,
                                                            const Limits& limits);
  ~RoutePlanReader();
  RoutePlanReader(const RoutePlanReader&) = delete;
  RoutePlanReader& operator=(const RoutePlanReader&) = delete;

  // One pass over the entries with its own position and buffer (it reads with pread, so
  // cursors of one reader are independent).
  class Cursor {
   public:
    // The next route; false at the end. Throws
    // std::runtime_error naming the file and the byte offset when an entry does not check out
    // (the file changed after open()).
    bool next(SavedRoute& out);

   private:
    friend class RoutePlanReader;
    explicit Cursor(const RoutePlanReader& plan) : plan_(&plan) {}
    bool fill(size_t need);  // at least `need` bytes buffered, unless the entries end first

    void publish_read();  // entries returned since the last publish into entries_read()

    const RoutePlanReader* plan_;
    uint64_t consumed_ = 0;     // entry bytes consumed
    uint64_t unpublished_ = 0;  // entries returned, not yet counted in entries_read()
    uint64_t last_offset_ = 0;
    std::vector<char> buf_;
    size_t buf_pos_ = 0, buf_end_ = 0;
  };
  Cursor cursor() const { return Cursor(*this); }  // every entry, in order

  const std::string& path() const { return path_; }
  const nlohmann::json& meta() const { return meta_; }
  uint64_t entries() const { return entries_; }
  // Entries returned by the cursors so far, counted every few thousand and at a cursor's end
  // (any thread: the progress line).
  uint64_t entries_read() const { return read_.load(std::memory_order_relaxed); }

 private:
  RoutePlanReader() = default;
  // Each returns why the plan is refused, or "" (messages name the file and byte).
  // A regular file of this user's with the magic, KEY and a footer that fits the file's size;
  // sets the entries' place and the footer's metadata length and checksum.
  std::string check_layout(const std::string& key_text, uint64_t& meta_len, uint64_t& checksum);
  // The checksum of everything before the footer, the metadata, and every entry readable.
  std::string check_contents(uint64_t meta_len, uint64_t checksum);

  std::string path_;
  int fd_ = -1;
  Limits limits_;
  nlohmann::json meta_;
  uint64_t entries_begin_ = 0, entries_bytes_ = 0, entries_ = 0;
  mutable std::atomic<uint64_t> read_{0};
};

}  // namespace fleet::plan
