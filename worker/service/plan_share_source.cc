#include "plan_share_source.h"

#include "fleet/trace/errors.h"
#include "fleet/trace/record.h"

namespace fleet::service {

namespace {

// A chunk ends at this many routes or when its frames span this many bytes of the trace (one
// pread per run of nearby frames, as a batch of references is read). 1 MiB rather than 4: the
// frames are still in cache when the replay parses them (interleaved, 5 runs each, 1M records:
// --shard key 0.90 -> 0.78 s mean, time 0.49 -> 0.48 s; docs/scaling.md).
constexpr size_t kChunkRoutes = 1024;
constexpr uint64_t kChunkSpanBytes = 1u << 20;

}  // namespace

Result<std::unique_ptr<PlanShareSource>> PlanShareSource::open(
    const std::string& plan_path, const std::string& plan_key,
    std::shared_ptr<const trace::SharedTrace> trace, int node_index, int node_count,
    uint32_t max_frame_bytes) {
  if (!trace) return Status::error("this worker mapped no trace at HELLO");
  plan::RoutePlanReader::Limits limits;
  limits.trace_size = trace->size();
  limits.workers = node_count;
  limits.max_frame_bytes = max_frame_bytes;
  // The coordinator walked every entry against these limits before offering the plan (the
  // trace's size is the one HELLO checked); the checksum says the file is still what it
  // walked. Each entry is checked again as it is read, so a plan changed since stops the run.
  limits.walk_entries = false;
  auto opened = plan::RoutePlanReader::open_path(plan_path, plan_key, limits);
  if (!opened) return opened.status();
  if (!opened.value())
    return Status::error(plan_path +
                         ": no such plan (removed since the "
                         "coordinator checked it?)");
  return std::unique_ptr<PlanShareSource>(
      new PlanShareSource(std::move(opened).value(), std::move(trace), node_index));
}

PlanShareSource::PlanShareSource(std::unique_ptr<plan::RoutePlanReader> plan,
                                 std::shared_ptr<const trace::SharedTrace> trace, int node_index)
    : plan_(std::move(plan)), trace_(std::move(trace)), me_(node_index) {
  cursor_.emplace(plan_->cursor());
}

void PlanShareSource::stop(std::string why) {
  if (problem_.empty()) problem_ = std::move(why);
  stopped_ = true;
}

bool PlanShareSource::refill() {
  refs_.clear();
  shifts_.clear();
  mask_keys_.clear();
  mask_at_.clear();
  masks_.clear();
  pos_ = 0;
  plan::SavedRoute r;
  uint64_t span_end = 0;
  try {
    while (refs_.size() < kChunkRoutes &&
           (refs_.empty() || span_end - refs_.front().offset < kChunkSpanBytes)) {
      if (!cursor_->next(r)) {
        plan_ended_ = true;
        break;
      }
      if (!(r.flags & plan::kRouteAllWorkers) && r.worker != me_) continue;
      refs_.push_back({r.file_offset, r.body_size});
      shifts_.push_back(r.t_shift);
      mask_keys_.push_back(r.mask_keys);
      mask_at_.emplace_back(masks_.size(), r.key_mask.size());
      masks_.append(r.key_mask);
      span_end = r.file_offset + 4 + r.body_size;
    }
    if (refs_.empty()) return false;
    // Entries are in file order, so the frames (gaps included) span at most this many bytes.
    frames_ = trace_->read(refs_, span_end - refs_.front().offset);
  } catch (const std::exception& e) {  // the plan changed since it was checked, or the trace
    stop(e.what());
    return false;
  }
  return true;
}

bool PlanShareSource::next(trace::RecordView& out) {
  if (stopped_) return false;
  if (pos_ >= refs_.size() && (plan_ended_ || !refill())) {
    stopped_ = true;
    return false;
  }
  const size_t i = pos_++;
  const std::string_view body = frames_.bodies[i];
  try {  // as a batch's reference is read (BatchQueue::next)
    trace::parse_record(reinterpret_cast<const uint8_t*>(body.data()), body.size(), out, {},
                        /*defer_args_check=*/true);
  } catch (const trace::DecodeError& e) {
    stop(trace_->path() + " at offset " + std::to_string(refs_[i].offset) +
         ": a record the plan routes here does not parse: " + e.what());
    return false;
  }
  out.file_offset = 0;
  out.t_mono -= shifts_[i];
  out.key_mask = std::string_view(masks_).substr(mask_at_[i].first, mask_at_[i].second);
  out.key_mask_keys = mask_keys_[i];
  ++kept_;
  return true;
}

void PlanShareSource::reject_malformed(const trace::RecordView&, const std::string& why) {
  // A plan is saved only from a run that found no malformed record.
  stop("a record the plan routes here is malformed: " + why);
}

double PlanShareSource::progress_fraction() const {
  const uint64_t n = plan_->entries();
  return n ? static_cast<double>(plan_->entries_read()) / n : 1.0;
}

nlohmann::json PlanShareSource::report() const {
  nlohmann::json j;
  j["from_plan"] = true;
  j["complete"] = plan_ended_ && pos_ >= refs_.size() && problem_.empty();
  j["problem"] = problem_;
  j["kept"] = kept_;
  j["entries_read"] = plan_->entries_read();
  return j;
}

}  // namespace fleet::service
