#include "fleet/coordinator/session/causal_preview.h"

#include <cstdio>

#include "fleet/causal/schedule_preview.h"
#include "fleet/replay/replay_session.h"
#include "fleet/trace/frame_reader.h"
#include "fleet/trace/op_decoder.h"

namespace fleet::session {

Status print_causal_preview(const ReplayOptions& o) {
  if (!(o.speed > 0)) {
    return Status::error(
        "--plan-only: the causal plan needs --speed > 0 (at speed 0 nothing is "
        "paced)");
  }
  causal::PreviewOptions po;
  po.speed = o.speed;
  po.pacing = o.pacing;
  po.ttl = replay::edge_ttl_of(o.engine);
  po.ttl.horizon_s = o.causal_horizon_s;
  po.schedule = o.schedule;
  causal::SchedulePreviewer preview(po);
  try {
    trace::ReaderOptions ro;
    ro.max_frame_bytes = o.max_frame_bytes;
    trace::FrameReader reader(o.trace_path, ro);
    trace::RecordView rec;
    trace::Op op;
    while (reader.next(rec)) {
      try {
        trace::decode_op(rec, op);
      } catch (const std::exception&) {  // a record the replay would skip: paced, no edges
        op = trace::Op{};
        op.t_mono = rec.t_mono;
      }
      preview.add(op);
    }
  } catch (const std::exception& e) {  // the trace failed mid-read: names the file and offset
    return Status::error(e.what());
  }
  const std::string text = preview.finish().text(o.speed);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return {};
}

}  // namespace fleet::session
