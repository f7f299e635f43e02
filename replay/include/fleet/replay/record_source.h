// Where a replay's records come from: a local `.lct` file, or the batches a worker receives
// from the coordinator. The session decodes the records itself, so both give LMCache's
// skip/fail semantics.
#pragma once

#include <cstdint>
#include <string>

#include "fleet/trace/frame_reader.h"
#include "fleet/trace/op.h"
#include "fleet/trace/record.h"

namespace fleet::replay {

class RecordSource {
 public:
  virtual ~RecordSource() = default;
  // The next record, valid until the next call; false at the end.
  virtual bool next(trace::RecordView& out) = 0;
  // decode_op found the record last returned malformed (its args check was deferred): the
  // source counts and reports it as it would have when reading it.
  virtual void reject_malformed(const trace::RecordView& rec, const std::string& why) = 0;
  // The record last returned, already decoded by the source itself (a worker that routes by
  // key decodes every record to route it): exactly what decode_op gives for `rec`, swapped into
  // `op` (whose old contents the source reuses). False: the caller decodes `rec` itself.
  virtual bool take_decoded(const trace::RecordView& rec, trace::Op& op) {
    (void)rec;
    (void)op;
    return false;
  }
  // Fraction of the input consumed in [0,1], or a negative value when unknown (progress).
  virtual double progress_fraction() const { return -1.0; }
  // True when next() will not wait on another process or the network (it may still read a
  // regular file): the replay then decodes records ahead while its pacer waits (decoded_stream.h).
  virtual bool next_never_waits() const { return false; }
};

// Records of a trace file, streamed (the reader owns its own buffer).
class FileRecordSource final : public RecordSource {
 public:
  explicit FileRecordSource(trace::FrameReader& reader) : reader_(reader) {}
  bool next(trace::RecordView& out) override { return reader_.next(out); }
  void reject_malformed(const trace::RecordView& rec, const std::string& why) override {
    reader_.reject_malformed(rec, why);
  }
  double progress_fraction() const override {
    uint64_t size = reader_.file_size();
    return size ? static_cast<double>(reader_.counters().bytes_consumed) / size : -1.0;
  }
  // A regular file (its size is known); a pipe's writer may keep next() waiting.
  bool next_never_waits() const override { return reader_.file_size() > 0; }

 private:
  trace::FrameReader& reader_;
};

}  // namespace fleet::replay
