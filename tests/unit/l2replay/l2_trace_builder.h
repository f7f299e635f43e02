// Hand-built L2 traces for the replay tests: one call per record kind, written in call order
// (file order is what the plan reads), through trace::TraceWriter and the L2 encoder. Keys are
// numbered: key(i) is chunk i of model "m" (a salt makes another object).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "fleet/trace/l2_encoder.h"
#include "fleet/trace/trace_writer.h"
#include "scratch_dir.h"

namespace fleet::l2replay::build {

inline trace::ObjectKey key(int i, const std::string& salt = "") {
  trace::ObjectKey k;
  k.chunk_hash = std::string("\0\0\0", 3) + static_cast<char>(i);
  k.model_name = "m";
  k.cache_salt = salt;
  return k;
}

class L2TraceBuilder {
 public:
  using Keys = std::vector<trace::ObjectKey>;

  L2TraceBuilder& adapter(int64_t index) { return (adapter_ = index), *this; }
  L2TraceBuilder& at(double t) { return (t_ = t), *this; }

  L2TraceBuilder& store(int64_t task, Keys keys, int64_t size = 4096) {
    auto& r = add(trace::L2Kind::StoreSubmitted, -1, task, std::move(keys));
    r.object_sizes.assign(r.keys.size(), size);
    r.total_bytes = size * static_cast<int64_t>(r.keys.size());
    return *this;
  }
  L2TraceBuilder& store_done(int64_t task, bool ok = true) {
    auto& r = add(trace::L2Kind::StoreCompleted, -1, task, {});
    r.succeeded_count = ok ? 1 : 0;
    r.failed_count = ok ? 0 : 1;
    return *this;
  }
  L2TraceBuilder& lookup(int64_t rid, int64_t task, Keys keys, int64_t layout_bytes = 4096) {
    auto& r = add(trace::L2Kind::LookupSubmitted, rid, task, std::move(keys));
    if (layout_bytes > 0) {
      r.group_layouts[0].shapes = {{layout_bytes}};
      r.group_layouts[0].dtypes = {trace::DType::UInt8};
    }
    return *this;
  }
  L2TraceBuilder& lookup_done(int64_t rid, int64_t task, std::vector<int64_t> hits) {
    add(trace::L2Kind::LookupCompleted, rid, task, {}).indices = std::move(hits);
    return *this;
  }
  L2TraceBuilder& load(int64_t rid, int64_t task, Keys keys, int64_t size = 4096) {
    auto& r = add(trace::L2Kind::LoadSubmitted, rid, task, std::move(keys));
    r.object_sizes.assign(r.keys.size(), size);
    return *this;
  }
  L2TraceBuilder& load_done(int64_t rid, int64_t task, std::vector<int64_t> ok) {
    add(trace::L2Kind::LoadCompleted, rid, task, {}).indices = std::move(ok);
    return *this;
  }
  L2TraceBuilder& unlock(int64_t rid, Keys keys) {
    add(trace::L2Kind::UnlockSubmitted, rid, -1, std::move(keys));
    return *this;
  }
  L2TraceBuilder& del(Keys keys) {
    auto& r = add(trace::L2Kind::DeleteSubmitted, -1, -1, std::move(keys));
    r.adapter_index = -1;
    r.l2_name = "MockL2Adapter";
    return *this;
  }
  L2TraceBuilder& end(int64_t recorder_dropped = 0, int64_t bus_dropped = 0) {
    auto& r = add(trace::L2Kind::TraceEnd, -1, -1, {});
    r.recorder_dropped_count = recorder_dropped;
    r.event_bus_dropped_count = bus_dropped;
    return *this;
  }

  // Writes the trace into the test's scratch directory and returns its path.
  std::string write(const std::string& name, const std::string& level = "l2") const {
    const std::string path = fleet::test::test_scratch_dir() / (name + ".lct");
    trace::Header h;
    h.level = level;
    trace::TraceWriter w(path, h);
    for (const auto& r : records_) w.write_frame(trace::encode_l2_record_body(r));
    w.close();
    return path;
  }

 private:
  trace::L2Record& add(trace::L2Kind kind, int64_t rid, int64_t task, Keys keys) {
    trace::L2Record r;
    r.kind = kind;
    r.t_mono = t_;
    r.t_wall = 1700000000.0 + t_;
    t_ += 0.001;  // each record a millisecond after the one before, unless at() says otherwise
    if (rid >= 0) r.request_id = rid;
    if (task >= 0) r.task_id = task;
    r.adapter_index = adapter_;
    r.l2_name = "mock";
    r.keys = std::move(keys);
    records_.push_back(std::move(r));
    return records_.back();
  }

  std::vector<trace::L2Record> records_;
  int64_t adapter_ = 0;
  double t_ = 1.0;
};

// The L2 spec's worked example: one key stored, looked up, loaded and unlocked by request 11.
inline L2TraceBuilder worked_example() {
  L2TraceBuilder b;
  b.store(1, {key(7)}).store_done(1);
  b.lookup(11, 2, {key(7)}).lookup_done(11, 2, {0});
  b.load(11, 3, {key(7)}).load_done(11, 3, {0});
  b.unlock(11, {key(7)}).end();
  return b;
}

}  // namespace fleet::l2replay::build
