// One `lct lint` pass over a trace, in phases: the header's checks, every record (time order,
// decode, and the write and read lifecycles, paired the way LMCache's dispatcher pairs them:
// fleet/trace/read_pairing.h, the replay's own rule), then what the reader skipped and what is
// still open at the end. lint.cc prints what it found.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fleet/trace/frame_reader.h"
#include "fleet/trace/op.h"
#include "fleet/trace/read_pairing.h"
#include "lint_findings.h"

namespace fleet::lct {

// Collects the reader's warnings instead of logging them; lint reports them itself.
class CollectingReporter final : public trace::Reporter {
 public:
  struct Item {
    uint64_t offset;
    std::string what;
  };
  void warning(uint64_t offset, std::string_view what) override {
    items.push_back({offset, std::string(what)});
  }
  std::vector<Item> items;
};

// Keys held (reserved for a write, or read): how many holds each, and the oldest one's offset.
class KeyLedger {
 public:
  void take(const trace::ObjectKey& k, uint64_t offset);
  bool release(const trace::ObjectKey& k);  // false: the key is not held
  // (offset of the oldest hold, the key as text) for every key still held, unordered.
  std::vector<std::pair<uint64_t, std::string>> held() const;

 private:
  struct Holds {
    uint64_t count = 0;
    uint64_t first_offset = 0;  // oldest still-open occurrence
  };
  std::unordered_map<trace::ObjectKey, Holds, trace::ObjectKeyHash> holds_;
};

class LintPass {
 public:
  LintPass(trace::FrameReader& reader, size_t max_offsets);
  void run(const CollectingReporter& reporter);  // every phase, once

  const Findings& findings() const { return findings_; }
  const std::map<std::string, uint64_t>& unknown_qualnames() const { return unknown_; }
  uint64_t records() const { return records_; }
  uint64_t decoded() const { return decoded_; }
  double max_t_mono() const { return max_t_; }

 private:
  struct OpenRead {  // a read_prefetched_results.__enter__ not yet exited
    std::vector<trace::ObjectKey> keys;
    uint64_t offset = 0;
  };

  void check_header();
  bool next_record();  // false: the end, or a corrupt length prefix (counted)
  void check_time(uint64_t offset);
  bool decode(uint64_t offset);  // false: skipped by replay (counted) or events-level
  void note_unknown(uint64_t offset);
  void check_lifecycle(uint64_t offset);
  void release_all(KeyLedger& ledger, const char* id, const char* not_what, uint64_t offset);
  void check_reader_warnings(const CollectingReporter& reporter);
  void check_left_open();
  void add_sorted(const char* id, std::vector<std::pair<uint64_t, std::string>> items);

  trace::FrameReader& reader_;
  const trace::Header& h_;
  const bool events_;
  Findings findings_;
  KeyLedger reserved_, read_open_;
  trace::ReadPairing<OpenRead> reads_;
  std::map<std::string, uint64_t> unknown_;
  uint64_t records_ = 0, decoded_ = 0;
  double max_t_ = 0;
  trace::RecordView rec_;
  trace::Op op_;
};

}  // namespace fleet::lct
