#include "fleet/plan/shard_router.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "fleet/plan/plan_table.h"
#include "fleet/trace/errors.h"
#include "fleet/trace/op_decoder.h"
#include "fleet/trace/op_encoder.h"

namespace fleet::plan {

namespace {

// wire::kMaxMaskedKeys, without the planner depending on the wire library.
constexpr size_t wire_max_masked_keys() { return 0xFFFF; }

uint64_t mix64(uint64_t x) {  // splitmix64 finaliser: a good, stable 64-bit mixer
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

uint64_t name_seed(const std::string& name) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : name) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return mix64(h);
}

bool opens(trace::OpKind k) {
  return k == trace::OpKind::ReserveWrite || k == trace::OpKind::SubmitPrefetch ||
         k == trace::OpKind::ReadEnter;
}

}  // namespace

const char* shard_mode_name(ShardMode m) {
  for (const auto& [name, mode] : kShardModeNames) {
    if (mode == m) return name.data();  // the table's literals end in '\0'
  }
  return "?";
}

const char* timeline_name(Timeline t) {
  for (const auto& [name, timeline] : kTimelineNames) {
    if (timeline == t) return name.data();
  }
  return "?";
}

uint64_t PerSecondCounts::peak() const {
  uint64_t peak = 0;
  for (uint64_t n : dense_) peak = std::max(peak, n);
  for (const auto& [s, n] : sparse_) peak = std::max(peak, n);
  return peak;
}

std::vector<WorkerPlan> ShardRouter::plan() const {
  std::vector<WorkerPlan> rows;
  for (size_t w = 0; w < plan_.size(); ++w) rows.push_back(row(w));
  return rows;
}

ShardRouter::ShardRouter(RouterOptions options) : options_(std::move(options)) {
  if (options_.worker_names.empty()) throw std::invalid_argument("no workers to route to");
  if (options_.mode == ShardMode::Time && !(options_.window_s > 0)) {
    throw std::invalid_argument("--window must be > 0 seconds");
  }
  for (const auto& n : options_.worker_names) worker_seeds_.push_back(name_seed(n));
  plan_.resize(options_.worker_names.size());
}

int ShardRouter::owner_of(uint64_t chunk_id) const {
  int best = 0;
  uint64_t best_score = 0;
  for (size_t i = 0; i < worker_seeds_.size(); ++i) {
    uint64_t score = mix64(chunk_id ^ worker_seeds_[i]);
    if (i == 0 || score > best_score) {
      best = static_cast<int>(i);
      best_score = score;
    }
  }
  return best;
}

void ShardRouter::account(int worker, const trace::RecordView& rec, trace::OpKind kind,
                          size_t bytes) {
  WorkerPlan& p = plan_[static_cast<size_t>(worker)];
  ++p.records;
  p.bytes += bytes;
  ++p.per_kind[static_cast<int>(kind)];
  p.per_second.add(static_cast<int64_t>(std::floor(rec.t_mono - t_first_)));
}

const std::vector<Route>& ShardRouter::route(const trace::RecordView& rec) {
  // A malformed record (found by a deferred args check) must leave no trace in the plan.
  const bool had_first = have_first_;
  const double t_first = t_first_, t_last = t_last_;
  const uint64_t records = records_;
  try {
    return route_checked(rec);
  } catch (const trace::MalformedRecord&) {
    have_first_ = had_first;
    t_first_ = t_first;
    t_last_ = t_last;
    records_ = records;
    routes_.clear();
    bodies_.clear();
    throw;
  }
}

const std::vector<Route>& ShardRouter::route_checked(const trace::RecordView& rec) {
  op_decoded_ = false;
  routes_.clear();
  bodies_.clear();
  if (!have_first_) {
    t_first_ = rec.t_mono;
    have_first_ = true;
  }
  t_last_ = std::max(t_last_, rec.t_mono);
  ++records_;
  std::string_view body(reinterpret_cast<const char*>(rec.body), rec.body_size);
  switch (options_.mode) {
    case ShardMode::None: {
      trace::check_deferred_args(rec);
      auto kind = trace::op_kind_from_qualname(rec.qualname);
      for (int w = 0; w < workers(); ++w) routes_.push_back({w, body, 0.0, true, {}, 0});
      account(0, rec, kind, body.size());  // every row alike: see plan()
      break;
    }
    case ShardMode::Time:
      route_time(rec);
      break;
    case ShardMode::Key:
      route_key(rec);
      break;
  }
  return routes_;
}

void ShardRouter::route_time(const trace::RecordView& rec) {
  trace::ScanInfo& scan = scan_;
  trace::scan_record(rec, scan);
  const double rel = std::max(0.0, rec.t_mono - t_first_);
  const int64_t own_window = static_cast<int64_t>(std::floor(rel / options_.window_s));
  int64_t window = own_window;
  // Follow the first still-open lifecycle among the record's chunks.
  for (uint64_t id : scan.chunk_ids) {
    OpenLifecycle* found = open_.find(id);
    if (!found) continue;
    OpenLifecycle& l = *found;
    if (l.open > 0 && rec.t_mono - l.last_t > options_.lifecycle_ttl_s) l.open = 0;  // expired
    if (l.open > 0) {
      window = l.window;
      break;
    }
  }
  const int n = workers();
  const int worker = static_cast<int>(window % n);
  if (window != own_window) ++plan_[static_cast<size_t>(worker)].moved;
  for (uint64_t id : scan.chunk_ids) {
    OpenLifecycle& l = open_[id];
    l.last_t = rec.t_mono;
    if (opens(scan.kind)) {
      if (l.open == 0) l.window = window;
      ++l.open;
    } else if (scan.kind == trace::OpKind::FinishWrite || scan.kind == trace::OpKind::AbortWrite) {
      l.open = 0;  // a finished write ends every lifecycle of the chunk
    } else if (scan.kind == trace::OpKind::ReadExit || scan.kind == trace::OpKind::FinishRead) {
      l.open = std::max(0, l.open - 1);
    }
    if (l.open == 0) open_.erase(id);
  }
  double shift = 0.0;
  if (options_.timeline == Timeline::Stack) {
    const int64_t k = window / n;  // this window's position on its worker's own timeline
    shift = static_cast<double>(window - k) * options_.window_s;
  }
  std::string_view body(reinterpret_cast<const char*>(rec.body), rec.body_size);
  routes_.push_back({worker, body, shift, true, {}, 0});
  account(worker, rec, scan.kind, body.size());
}

void ShardRouter::route_key(const trace::RecordView& rec) {
  std::string_view body(reinterpret_cast<const char*>(rec.body), rec.body_size);
  bool decoded = true;
  try {
    trace::decode_op(rec, op_);
  } catch (const trace::MalformedRecord&) {
    throw;
  } catch (const trace::DecodeError&) {
    decoded = false;
  }
  op_decoded_ = decoded;
  if (!decoded || op_.kind == trace::OpKind::Unknown || op_.op_keys().empty()) {
    // Skipped (or keyless) records still count once, on the worker that owns the record's
    // position in the trace.
    int w = static_cast<int>(records_ % static_cast<uint64_t>(workers()));
    routes_.push_back({w, body, 0.0, true, {}, 0});
    account(w, rec, decoded ? op_.kind : trace::OpKind::Unknown, body.size());
    return;
  }
  const auto& keys = op_.op_keys();
  std::vector<int>& owners = owners_;
  owners.resize(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    // chunk_identity_hash, with the model name's part computed once per distinct name.
    if (keys[i].model_name.id() != model_id_) {
      model_id_ = keys[i].model_name.id();
      model_state_ = trace::chunk_identity_model_state(keys[i].model_name);
    }
    owners[i] = owner_of(trace::chunk_identity_hash_continue(model_state_, keys[i].chunk_hash));
  }
  std::vector<int>& distinct = distinct_;
  distinct.clear();
  for (int o : owners)
    if (std::find(distinct.begin(), distinct.end(), o) == distinct.end()) distinct.push_back(o);
  if (distinct.size() == 1) {
    routes_.push_back({distinct[0], body, 0.0, true, {}, 0});
    account(distinct[0], rec, op_.kind, body.size());
    return;
  }
  ++split_calls_;
  std::sort(distinct.begin(), distinct.end());
  if (!options_.encode_split_parts && keys.size() <= wire_max_masked_keys()) {
    // Each part is the original frame and the keys it keeps: nothing is re-encoded, and a
    // worker that reads the trace gets a reference (wire/batch.h, masked reference).
    masks_.resize(distinct.size());
    for (auto& m : masks_) m.assign((keys.size() + 7) / 8, '\0');
    for (size_t i = 0; i < keys.size(); ++i) {
      const size_t part = static_cast<size_t>(
          std::find(distinct.begin(), distinct.end(), owners[i]) - distinct.begin());
      masks_[part][i / 8] = static_cast<char>(masks_[part][i / 8] | (1 << (i % 8)));
    }
    for (size_t i = 0; i < distinct.size(); ++i) {
      routes_.push_back(
          {distinct[i], body, 0.0, true, masks_[i], static_cast<uint16_t>(keys.size())});
      account(distinct[i], rec, op_.kind, body.size());
      ++plan_[static_cast<size_t>(distinct[i])].split_parts;
    }
    return;
  }
  bodies_.reserve(distinct.size());
  // Each part is the call with only its node's keys: the key list is swapped in place for the
  // part's (a copy of the whole Op per part was a third of key routing's time).
  std::vector<trace::ObjectKey>& slot =
      op_.kind == trace::OpKind::SubmitPrefetch ? op_.spec.keys : op_.keys;
  std::vector<trace::ObjectKey> all = std::move(slot);
  for (int w : distinct) {
    slot.clear();
    for (size_t i = 0; i < all.size(); ++i)
      if (owners[i] == w) slot.push_back(all[i]);
    bodies_.push_back(trace::encode_record_body(op_, trace::Era::Three));
  }
  slot = std::move(all);
  for (size_t i = 0; i < distinct.size(); ++i) {
    routes_.push_back({distinct[i], bodies_[i], 0.0, false, {}, 0});
    account(distinct[i], rec, op_.kind, bodies_[i].size());
    ++plan_[static_cast<size_t>(distinct[i])].split_parts;
  }
}

bool ShardRouter::take_decoded(trace::Op& into) {
  if (!op_decoded_) return false;
  op_decoded_ = false;
  swap(op_, into);  // trace::swap: member by member
  return true;
}

PlanTotals ShardRouter::totals() const {
  return {options_.mode, options_.timeline, options_.window_s, records_, split_calls_, t_first_,
          t_last_};
}

std::vector<PlanRow> ShardRouter::rows() const {
  std::vector<PlanRow> out;
  for (size_t w = 0; w < plan_.size(); ++w) out.push_back(plan_row(row(w)));
  return out;
}

nlohmann::ordered_json ShardRouter::plan_json() const {
  return plan::plan_json(totals(), options_.worker_names, rows());
}

std::string ShardRouter::render_plan() const {
  return plan::render_plan(totals(), options_.worker_names, rows());
}

}  // namespace fleet::plan
