// Small builders for planner tests: typed ops encoded as era-3 record bodies, kept alive in a
// list so RecordViews into them stay valid while a test routes them.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "fleet/trace/op.h"
#include "fleet/trace/op_encoder.h"
#include "fleet/trace/record.h"

namespace fleet::plantest {

inline trace::ObjectKey key(const std::string& chunk, int64_t rank = 0,
                            const std::string& model = "m") {
  trace::ObjectKey k;
  k.chunk_hash = chunk;
  k.model_name = model;
  k.kv_rank = rank;
  return k;
}

inline trace::MemoryLayout layout() {
  trace::MemoryLayout l;
  l.shapes = {{2, 4, 16, 2, 8}};
  l.dtypes = {trace::DType::BFloat16};
  return l;
}

inline trace::Op op(trace::OpKind kind, double t, std::vector<trace::ObjectKey> keys) {
  trace::Op o;
  o.kind = kind;
  o.t_mono = t;
  o.t_wall = 1.7e9 + t;
  if (kind == trace::OpKind::SubmitPrefetch) {
    o.spec.keys = std::move(keys);
    o.spec.group_layouts[0] = layout();
  } else {
    o.keys = std::move(keys);
  }
  if (kind == trace::OpKind::ReserveWrite) o.layout = layout();
  return o;
}

// Owns encoded bodies; view() parses one into a RecordView that points into it.
class Records {
 public:
  const trace::RecordView& add(const trace::Op& o) {
    bodies_.push_back(trace::encode_record_body(o, trace::Era::Three));
    views_.emplace_back();
    const std::string& b = bodies_.back();
    trace::parse_record(reinterpret_cast<const uint8_t*>(b.data()), b.size(), views_.back());
    return views_.back();
  }
  const std::deque<trace::RecordView>& views() const { return views_; }

 private:
  std::deque<std::string> bodies_;
  std::deque<trace::RecordView> views_;
};

}  // namespace fleet::plantest
