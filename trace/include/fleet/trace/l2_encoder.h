// L2Record -> record body, the inverse of decode_l2_record (docs/l2-traces.md, "Record kinds"):
// the args each kind carries, in the recorder's order, so that tests and the bench generator
// can write L2 traces. Optional fields are written when set (request_id, task_id, a lookup's
// group_layout_descs or, with legacy_layout_desc, its group 0 as layout_desc).
#pragma once

#include <string>

#include "fleet/trace/l2_record.h"

namespace fleet::trace {

// The msgpack body of one Record frame (frame it with frame_bytes or TraceWriter::write_frame).
// An L2Kind::Unknown record is written with unknown_qualname and no args.
std::string encode_l2_record_body(const L2Record& r, int64_t schema = 2);

}  // namespace fleet::trace
