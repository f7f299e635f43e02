#include "self_routed_source.h"

#include <cmath>
#include <limits>

#include "fleet/plan/plan_table.h"
#include "fleet/plan/route_record.h"

namespace fleet::service {

namespace {

// Frames only node 0 reports: every worker reads the same file, and --local workers share the
// coordinator's terminal (one warning per malformed frame, not one per worker).
class QuietReporter final : public trace::Reporter {
 public:
  void warning(uint64_t, std::string_view) override {}
};

template <class Enum, size_t N>
bool enum_of(const std::array<std::pair<std::string_view, Enum>, N>& table, std::string_view name,
             Enum& out) {
  for (const auto& [spelling, value] : table) {
    if (spelling != name) continue;
    out = value;
    return true;
  }
  return false;
}

bool positive(double v) { return std::isfinite(v) && v > 0; }

}  // namespace

Result<plan::RouterOptions> self_routing_options(const wire::SelfRouting& s, int node_index,
                                                 int node_count) {
  plan::RouterOptions o;
  auto bad = [](const std::string& what) {
    return Status::error("self-routing: " + what, ExitCode::kBadInput);
  };
  if (!enum_of(plan::kShardModeNames, s.shard, o.mode))
    return bad("shard '" + s.shard + "' (none, time or key)");
  if (!enum_of(plan::kTimelineNames, s.timeline, o.timeline))
    return bad("timeline '" + s.timeline + "' (preserve or stack)");
  if (o.mode == plan::ShardMode::Time && !positive(s.window_s))
    return bad("window " + std::to_string(s.window_s) + " s (must be > 0)");
  if (!positive(s.lifecycle_ttl_s))
    return bad("lifecycle ttl " + std::to_string(s.lifecycle_ttl_s) + " s (must be > 0)");
  if (node_count < 1 || node_index < 0 || node_index >= node_count)
    return bad("node " + std::to_string(node_index) + " of " + std::to_string(node_count));
  if (s.max_frame_bytes == 0) return bad("frame limit 0 bytes");
  if (o.mode == plan::ShardMode::Key) {
    if (s.worker_names.size() != static_cast<size_t>(node_count))
      return bad(std::to_string(s.worker_names.size()) + " worker names for " +
                 std::to_string(node_count) + " nodes (key sharding hashes every name)");
    o.worker_names = s.worker_names;
  } else {
    // none and time route by position: the names only label the plan's rows.
    for (int i = 0; i < node_count; ++i) o.worker_names.push_back("node-" + std::to_string(i));
  }
  o.window_s = o.mode == plan::ShardMode::Time ? s.window_s : o.window_s;
  o.lifecycle_ttl_s = s.lifecycle_ttl_s;
  o.encode_split_parts = false;  // a part stays the original record plus its key mask
  return o;
}

Result<std::unique_ptr<SelfRoutedSource>> SelfRoutedSource::open(const std::string& path,
                                                                 plan::RouterOptions router,
                                                                 int node_index,
                                                                 uint32_t max_frame_bytes,
                                                                 bool read_ahead) {
  std::unique_ptr<trace::Reporter> reporter;
  if (node_index != 0) reporter = std::make_unique<QuietReporter>();
  trace::ReaderOptions ro;
  ro.max_frame_bytes = max_frame_bytes;
  ro.defer_args_check = true;  // as the coordinator's reader: the router checks the args
  ro.reporter = reporter.get();
  ro.read_ahead = read_ahead;
  try {
    auto reader = std::make_unique<trace::FrameReader>(path, ro);
    return std::unique_ptr<SelfRoutedSource>(new SelfRoutedSource(
        std::move(reporter), std::move(reader), std::move(router), node_index));
  } catch (const std::exception& e) {  // the trace changed or vanished since HELLO
    return Status::error(e.what());
  }
}

SelfRoutedSource::SelfRoutedSource(std::unique_ptr<trace::Reporter> reporter,
                                   std::unique_ptr<trace::FrameReader> reader,
                                   plan::RouterOptions router, int node_index)
    : reporter_(std::move(reporter)),
      reader_(std::move(reader)),
      router_(std::move(router)),
      me_(node_index),
      args_checked_by_router_(router_.mode() != plan::ShardMode::Key) {}

bool SelfRoutedSource::next(trace::RecordView& out) {
  router_decoded_ = false;
  while (!at_end_) {
    try {
      if (!reader_->next(rec_)) {
        at_end_ = true;
        break;
      }
    } catch (const std::exception& e) {  // a damaged trace mid-read: the coordinator's too
      problem_ = e.what();
      at_end_ = true;
      break;
    }
    const std::vector<plan::Route>& routes = plan::route_or_reject(router_, *reader_, rec_);
    if (cut_edges_ && !routes.empty())
      cut_edges_->add(rec_, static_cast<uint32_t>(routes.front().worker));
    for (const plan::Route& r : routes) {
      if (r.worker != me_) continue;
      if (r.original) {
        out = rec_;
        out.args_checked = out.args_checked || args_checked_by_router_;
        router_decoded_ = true;
      } else {  // a split part re-encoded (more keys than a mask holds): as a batch's frame
        trace::parse_record(reinterpret_cast<const uint8_t*>(r.body.data()), r.body.size(), out, {},
                            /*defer_args_check=*/true);
      }
      out.file_offset = 0;  // as a batch delivers it
      out.t_mono -= r.t_shift;
      out.key_mask = r.key_mask;
      out.key_mask_keys = r.mask_keys;
      ++kept_;
      return true;  // a record routes to a worker at most once (split parts: one per owner)
    }
  }
  return false;
}

bool SelfRoutedSource::take_decoded(const trace::RecordView& rec, trace::Op& op) {
  if (!router_decoded_ || !router_.take_decoded(op)) return false;
  router_decoded_ = false;
  op.t_mono = rec.t_mono;  // as decode_op sets them: the record as handed over (stack shift)
  op.t_wall = rec.t_wall;
  return true;
}

void SelfRoutedSource::count_cut_edges(causal::EdgeFinderOptions ttl, size_t nodes) {
  cut_edges_ = std::make_unique<causal::CutEdgeCounter>(ttl, nodes);
}

void SelfRoutedSource::cut_edges_into(causal::PacingStats& pacing) const {
  if (!cut_edges_) return;
  pacing.edges.cut = cut_edges_->cut_of(static_cast<size_t>(me_));
  pacing.cut_counted = true;
}

void SelfRoutedSource::reject_malformed(const trace::RecordView&, const std::string& why) {
  // The router checked this record's args before handing it over: the same check failing
  // now would replay other records than the coordinator's plan counts. Stop.
  if (problem_.empty())
    problem_ = "a record routed here is malformed to the replay but not to the router: " + why;
  at_end_ = true;
}

double SelfRoutedSource::progress_fraction() const {
  const uint64_t size = reader_->file_size();
  return size ? static_cast<double>(reader_->counters().bytes_consumed) / size : -1.0;
}

nlohmann::json SelfRoutedSource::report() const {
  const trace::ReaderCounters& c = reader_->counters();
  const plan::PlanTotals t = router_.totals();
  const std::vector<plan::PlanRow> rows = router_.rows();
  nlohmann::json j;
  j["complete"] = at_end_ && problem_.empty();  // the scan reached the end of the trace
  j["problem"] = problem_;
  j["records_read"] = c.records;
  j["malformed_skipped"] = c.malformed_skipped;
  j["truncated_tail"] = c.truncated_tail;
  j["records_routed"] = t.records;
  j["split_calls"] = t.split_calls;
  j["t_first"] = t.t_first;
  j["t_last"] = t.t_last;
  j["kept"] = kept_;
  j["row"] = plan::plan_row_json(rows[static_cast<size_t>(me_)]);
  return j;
}

}  // namespace fleet::service
