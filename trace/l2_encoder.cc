#include "fleet/trace/l2_encoder.h"

#include "fleet/trace/codecs.h"
#include "fleet/trace/msgpack_writer.h"

namespace fleet::trace {

namespace {

void ints(MsgpackWriter& w, const std::vector<int64_t>& v) {
  w.array(static_cast<uint32_t>(v.size()));
  for (int64_t i : v) w.integer(i);
}

// The args of `r`'s kind, as (name, writer) pairs counted first: a msgpack map needs its size.
class ArgWriter {
 public:
  ArgWriter(const L2Record& r, MsgpackWriter& w, int64_t schema) : r_(r), w_(w), schema_(schema) {}

  void write() {
    count_ = true;
    n_ = 0;
    args();
    w_.map(n_);
    count_ = false;
    args();
  }

 private:
  bool on(bool present, const char* name) {
    if (!present) return false;
    if (count_) {
      ++n_;
      return false;
    }
    w_.str(name);
    return true;
  }
  void task_args(bool with_request) {
    if (on(with_request && r_.request_id.has_value(), "request_id")) w_.integer(*r_.request_id);
    if (on(true, "adapter_index")) w_.integer(r_.adapter_index);
    if (on(r_.task_id.has_value(), "task_id")) w_.integer(*r_.task_id);
    if (on(true, "l2_name")) w_.str(r_.l2_name);
  }
  void keys() {
    if (on(true, "keys")) encode_object_keys(r_.keys, w_, schema_);
  }
  void sizes() {
    if (on(true, "object_sizes")) ints(w_, r_.object_sizes);
    if (on(true, "key_count")) w_.integer(static_cast<int64_t>(r_.keys.size()));
    if (on(true, "total_bytes")) w_.integer(r_.total_bytes);
  }
  void salts(bool present) {
    if (!on(present, "key_count_per_salt")) return;
    w_.map(static_cast<uint32_t>(r_.key_count_per_salt.size()));
    for (const auto& [salt, n] : r_.key_count_per_salt) {
      w_.str(salt);
      w_.integer(n);
    }
  }
  void layouts() {
    if (r_.legacy_layout_desc) {
      if (on(r_.group_layouts.count(0) > 0, "layout_desc"))
        encode_layout(r_.group_layouts.at(0), w_);
      return;
    }
    if (!on(true, "group_layout_descs")) return;
    w_.map(static_cast<uint32_t>(r_.group_layouts.size()));
    for (const auto& [gid, layout] : r_.group_layouts) {
      w_.integer(gid);
      encode_layout(layout, w_);
    }
  }
  void completion_counts() {
    if (on(true, "bytes_transferred")) w_.integer(r_.bytes_transferred);
    if (on(true, "succeeded_count")) w_.integer(r_.succeeded_count);
    if (on(true, "failed_count")) w_.integer(r_.failed_count);
  }
  void args() {
    switch (r_.kind) {
      case L2Kind::StoreSubmitted:
        task_args(false), keys(), sizes(), salts(true);
        break;
      case L2Kind::StoreCompleted:
        task_args(false), completion_counts(), salts(r_.succeeded_count > 0);
        break;
      case L2Kind::LookupSubmitted:
        task_args(true), keys(), layouts();
        break;
      case L2Kind::LookupCompleted:
      case L2Kind::LoadCompleted:
        task_args(true);
        if (on(true, r_.kind == L2Kind::LookupCompleted ? "hit_indices" : "success_indices"))
          ints(w_, r_.indices);
        break;
      case L2Kind::LoadSubmitted:
        task_args(true), keys(), sizes();
        break;
      case L2Kind::UnlockSubmitted:
      case L2Kind::DeleteSubmitted:
        task_args(true), keys();
        break;
      case L2Kind::TraceEnd:
        if (on(true, "recorder_dropped_count")) w_.integer(r_.recorder_dropped_count);
        if (on(true, "event_bus_dropped_count")) w_.integer(r_.event_bus_dropped_count);
        break;
      case L2Kind::Unknown:
        break;
    }
  }

  const L2Record& r_;
  MsgpackWriter& w_;
  int64_t schema_;
  bool count_ = true;
  uint32_t n_ = 0;
};

}  // namespace

std::string encode_l2_record_body(const L2Record& r, int64_t schema) {
  std::string out;
  MsgpackWriter w(out);
  w.map(5);
  w.str("type");
  w.str("record");
  w.str("t_mono");
  w.float64(r.t_mono);
  w.str("t_wall");
  w.float64(r.t_wall);
  w.str("qualname");
  w.str(r.kind == L2Kind::Unknown ? std::string_view(r.unknown_qualname) : r.qualname());
  w.str("args");
  ArgWriter(r, w, schema).write();
  return out;
}

}  // namespace fleet::trace
