// Record -> typed Op, normalising the four LMCache eras (docs/trace-format.md §3.3): era 1
// extra_count -> read_locks = extra_count + 1 and prefetch keys+layout -> a PREFIX spec; era 4
// reserve_write without mode -> "new". Also the planner's fast path that extracts only (t_mono,
// kind, chunk identities) without building objects.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fleet/trace/op.h"
#include "fleet/trace/record.h"

namespace fleet::trace {

// Decodes a record's args into `out` (reusing its buffers). Throws DecodeError when the args
// do not decode (unknown codec tag, missing argument, bad payload): LMCache counts such a
// record as skipped. An unknown qualname yields OpKind::Unknown without decoding the args.
// A record with a key mask (a split call's part) gets only the keys its mask keeps, the others
// never copied (codecs.h, KeyMask); a mask made for another record throws MalformedRecord.
void decode_op(const RecordView& rec, Op& out);

// The model-name part of chunk identities, kept from record to record (a trace names one or
// a few models): its msgpack bytes as last seen canonically, matched raw before anything else.
struct ModelHashCache {
  std::string model;
  std::string encoded;  // model's msgpack str bytes; empty until seen canonically
  uint64_t state = 0;
  bool valid = false;
  uint64_t get(std::string_view m);
};

// What the planner needs of a record; reused from record to record, so a scan allocates
// nothing once its vector and cache have grown.
struct ScanInfo {
  double t_mono = 0.0;
  OpKind kind = OpKind::Unknown;
  std::vector<uint64_t> chunk_ids;  // chunk_lifecycle_id per key, in key order
  bool decode_failed = false;
  ModelHashCache models;  // reused by the next scan with this ScanInfo
};
// With deferred args (RecordView::args_checked false) the scan validates the args in the same
// walk and throws MalformedRecord for a frame msgspec would refuse, like decode_op.
void scan_record(const RecordView& rec, ScanInfo& out);
// The deferred args check alone, for consumers that neither decode nor scan a record: throws
// MalformedRecord if msgspec would refuse the frame; nothing when the reader checked it.
void check_deferred_args(const RecordView& rec);

}  // namespace fleet::trace
