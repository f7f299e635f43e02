#include "fleet/l2replay/l2_timeline_merge.h"

#include <algorithm>
#include <map>
#include <string>

#include "fleet/l2replay/l2_replay_result.h"

namespace fleet::l2replay {

namespace {

using Json = nlohmann::json;

// Each field of a window's kind, by its wire name: one table for both directions.
struct Field {
  const char* name;
  bool is_max;  // signed, merged by max (latencies, lag); otherwise summed (counts, bytes)
};
enum FieldId { kDispatched, kCompleted, kFailed, kBytes, kP50, kP99, kMax, kLag, kFields };
constexpr Field kField[kFields] = {{"dispatched", false},    {"completed", false},
                                   {"failed", false},        {"bytes_moved", false},
                                   {"latency_p50_ns", true}, {"latency_p99_ns", true},
                                   {"latency_max_ns", true}, {"schedule_lag_max_ns", true}};

// The field's storage; the signed ones through their unsigned view (the same object may be
// accessed as either).
uint64_t& slot(L2WindowOp& o, size_t f) {
  switch (f) {
    case kDispatched:
      return o.dispatched;
    case kCompleted:
      return o.completed;
    case kFailed:
      return o.failed;
    case kBytes:
      return o.bytes_moved;
    case kP50:
      return reinterpret_cast<uint64_t&>(o.latency_p50_ns);
    case kP99:
      return reinterpret_cast<uint64_t&>(o.latency_p99_ns);
    case kMax:
      return reinterpret_cast<uint64_t&>(o.latency_max_ns);
    default:
      return reinterpret_cast<uint64_t&>(o.schedule_lag_max_ns);
  }
}

bool active(const std::vector<L2Window>& windows, size_t k) {
  for (const L2Window& w : windows)
    if (w.ops[k].dispatched || w.ops[k].completed) return true;
  return false;
}

}  // namespace

Json l2_timeline_wire(const std::vector<L2Window>& windows) {
  Json::array_t index;
  for (const L2Window& w : windows) index.emplace_back(w.index);
  Json by_kind = Json::object();
  for (size_t k = 0; k < kL2OpCount; ++k) {
    if (!active(windows, k)) continue;
    Json cols = Json::object();
    for (size_t f = 0; f < kFields; ++f) {
      Json::array_t col;
      col.reserve(windows.size());
      for (const L2Window& w : windows) {
        L2WindowOp o = w.ops[k];
        const uint64_t v = slot(o, f);
        if (kField[f].is_max) {
          col.emplace_back(static_cast<int64_t>(v));
        } else {
          col.emplace_back(v);
        }
      }
      cols[kField[f].name] = std::move(col);
    }
    by_kind[std::to_string(k)] = std::move(cols);
  }
  return {{"index", std::move(index)}, {"by_kind", std::move(by_kind)}};
}

Result<std::vector<L2Window>> l2_timeline_from_wire(const Json& j) {
  try {
    const Json& index = j.at("index");
    std::vector<L2Window> out(index.size());
    for (size_t i = 0; i < out.size(); ++i) {
      out[i].index = index[i].get<int64_t>();
      if (i > 0 && out[i].index <= out[i - 1].index)
        return Status::error("timeline: window indices do not ascend");
    }
    for (const auto& [kind, cols] : j.at("by_kind").items()) {
      const unsigned long k = std::stoul(kind);
      if (k >= kL2OpCount) return Status::error("timeline: kind " + kind + " out of range");
      for (size_t f = 0; f < kFields; ++f) {
        const Json& col = cols.at(kField[f].name);
        if (col.size() != out.size())
          return Status::error("timeline: column " + std::string(kField[f].name) + " of kind " +
                               kind + " has " + std::to_string(col.size()) + " entries for " +
                               std::to_string(out.size()) + " windows");
        for (size_t i = 0; i < out.size(); ++i) {
          slot(out[i].ops[k], f) = kField[f].is_max ? static_cast<uint64_t>(col[i].get<int64_t>())
                                                    : col[i].get<uint64_t>();
        }
      }
    }
    return out;
  } catch (const std::exception& e) {  // a field missing or of another type (nlohmann, stoul)
    return Status::error(std::string("timeline: ") + e.what());
  }
}

std::vector<L2Window> merge_l2_timelines(const std::vector<const std::vector<L2Window>*>& parts) {
  std::map<int64_t, L2Window> by_index;
  for (const std::vector<L2Window>* part : parts) {
    for (const L2Window& w : *part) {
      auto [it, fresh] = by_index.try_emplace(w.index, w);
      if (fresh) continue;
      for (size_t k = 0; k < kL2OpCount; ++k) {
        L2WindowOp& into = it->second.ops[k];
        L2WindowOp from = w.ops[k];
        for (size_t f = 0; f < kFields; ++f) {
          uint64_t& a = slot(into, f);
          const uint64_t b = slot(from, f);
          if (!kField[f].is_max) {
            a += b;
          } else if (static_cast<int64_t>(b) > static_cast<int64_t>(a)) {
            a = b;
          }
        }
      }
    }
  }
  std::vector<L2Window> out;
  out.reserve(by_index.size());
  for (auto& [i, w] : by_index) out.push_back(w);
  return out;
}

}  // namespace fleet::l2replay
