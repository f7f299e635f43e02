#include "fleet/trace/op_encoder.h"

#include <stdexcept>

#include "fleet/trace/codecs.h"
#include "fleet/trace/msgpack_writer.h"

namespace fleet::trace {

void encode_op_args(const Op& op, Era era, std::string& out, int64_t schema) {
  MsgpackWriter w(out);
  switch (op.kind) {
    case OpKind::ReserveWrite:
      w.map(era == Era::Four ? 2 : 3);
      w.str("keys");
      encode_object_keys(op.keys, w, schema);
      w.str("layout_desc");
      encode_layout(op.layout, w);
      if (era != Era::Four) {
        w.str("mode");
        w.str(write_mode_name(op.mode));
      }
      return;
    case OpKind::FinishWrite:
    case OpKind::AbortWrite:
    case OpKind::ReadEnter:
    case OpKind::ReadExit:
      w.map(1);
      w.str("keys");
      encode_object_keys(op.keys, w, schema);
      return;
    case OpKind::FinishRead:
      w.map(2);
      w.str("keys");
      encode_object_keys(op.keys, w, schema);
      if (era == Era::One) {
        w.str("extra_count");
        w.integer(op.read_locks - 1);
      } else {
        w.str("read_locks");
        w.integer(op.read_locks);
      }
      return;
    case OpKind::SubmitPrefetch:
      if (era == Era::One) {
        w.map(5);
        w.str("keys");
        encode_object_keys(op.spec.keys, w, schema);
        w.str("layout_desc");
        encode_layout(
            op.spec.group_layouts.empty() ? MemoryLayout{} : op.spec.group_layouts.begin()->second,
            w);
        w.str("extra_count");
        w.integer(op.spec.num_kv_readers - 1);
        w.str("external_request_id");
        w.str(op.external_request_id);
        w.str("policy");
        encode_trim_policy(op.spec.policy, w);
        return;
      }
      if (era == Era::Four) {
        throw std::invalid_argument(
            "era-4 submit_prefetch_task has no known codec (spec [OPEN] 2); LMCache drops it");
      }
      w.map(3);
      w.str("spec");
      encode_prefetch_spec(op.spec, w, schema);
      w.str("external_request_id");
      w.str(op.external_request_id);
      w.str("skip_l2");
      w.boolean(op.skip_l2);
      return;
    case OpKind::Unknown:
      w.map(0);
      return;
  }
}

std::string encode_record_body(const Op& op, Era era, int64_t schema) {
  std::string out;
  out.reserve(512);  // a typical record: one allocation instead of a doubling series
  MsgpackWriter w(out);
  w.map(5);
  w.str("type");
  w.str("record");
  w.str("t_mono");
  w.float64(op.t_mono);
  w.str("t_wall");
  w.float64(op.t_wall);
  w.str("qualname");
  w.str(op.qualname());
  w.str("args");
  encode_op_args(op, era, out, schema);
  return out;
}

}  // namespace fleet::trace
