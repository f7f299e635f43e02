// Record -> L2Record (docs/l2-traces.md, "Record kinds"): the args of the eight L2 event kinds
// and the end marker, with the fork's variants accepted where it varied (`layout_desc` or
// `group_layout_descs` with int or decimal-string group keys; ObjectKeys with or without
// `cache_salt` / `object_group_id`) and nothing else forgiven.
#pragma once

#include "fleet/trace/l2_record.h"
#include "fleet/trace/record.h"

namespace fleet::trace {

// Decodes `rec` into `out` (reusing its buffers; sequence and file_offset are the caller's).
// Throws DecodeError, offset relative to the frame body, when the args do not decode: an
// unknown codec tag anywhere (also in an unknown kind's args, as the fork decodes them all), a
// required arg missing or of the wrong type, a negative object size, or `keys` and
// `object_sizes` of different lengths. A frame whose deferred args check fails throws
// MalformedRecord.
void decode_l2_record(const RecordView& rec, L2Record& out);

}  // namespace fleet::trace
