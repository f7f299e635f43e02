#include "fleet/plan/route_record.h"

#include "fleet/trace/errors.h"

namespace fleet::plan {

const std::vector<Route>& route_or_reject(ShardRouter& router, trace::FrameReader& reader,
                                          const trace::RecordView& rec) {
  static const std::vector<Route> kNone;
  try {
    return router.route(rec);
  } catch (const trace::MalformedRecord& e) {
    reader.reject_malformed(rec, e.what());
    return kNone;
  }
}

}  // namespace fleet::plan
