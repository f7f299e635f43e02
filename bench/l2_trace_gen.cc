// l2_trace_gen: writes a synthetic L2 adapter-level trace for bench/l2_replay.sh. Multi-turn
// conversations: each request looks up its conversation's last chunks plus new ones, loads and
// unlocks what it found, and stores what it missed; every 100th request deletes an old chunk.
// Deterministic for a seed. Not a workload model: a load the replayer's dispatch can be timed on.
//
//   l2_trace_gen OUT.lct [--requests N] [--rate REQ_PER_S] [--seed S]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "fleet/trace/l2_encoder.h"
#include "fleet/trace/trace_writer.h"

namespace {

using fleet::trace::L2Kind;
using fleet::trace::L2Record;
using fleet::trace::ObjectKey;

constexpr int kConversations = 4096;
constexpr int kLookback = 6;  // chunks of the conversation a request asks for again
constexpr int kNewChunks = 2;
constexpr int64_t kObjectBytes = 256 << 10;

ObjectKey key_of(uint64_t id) {
  ObjectKey k;
  char bytes[8];
  std::memcpy(bytes, &id, 8);
  k.chunk_hash = std::string_view(bytes, 8);
  k.model_name = "bench-model";
  return k;
}

class Gen {
 public:
  Gen(const std::string& path, double rate) : w_(path, header()), step_(1.0 / rate / 8) {}

  void request(int64_t rid, std::mt19937_64& rng) {
    const int c = static_cast<int>(rng() % kConversations);
    int& len = length_[static_cast<size_t>(c)];
    std::vector<ObjectKey> keys;
    std::vector<int64_t> hits;
    for (int i = std::max(0, len - kLookback); i < len + kNewChunks; ++i) {
      const uint64_t id = (static_cast<uint64_t>(c) << 32) | static_cast<uint32_t>(i);
      if (stored_.count(id)) hits.push_back(static_cast<int64_t>(keys.size()));
      keys.push_back(key_of(id));
    }
    len += kNewChunks;
    emit(task(L2Kind::LookupSubmitted, rid, next_task_, keys, true));
    emit(done(L2Kind::LookupCompleted, rid, next_task_++, hits));
    std::vector<ObjectKey> found, missed;
    for (size_t i = 0, h = 0; i < keys.size(); ++i) {
      const bool hit = h < hits.size() && hits[h] == static_cast<int64_t>(i);
      (hit ? found : missed).push_back(keys[i]);
      h += hit;
    }
    if (!found.empty()) {
      std::vector<int64_t> all(found.size());
      for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
      emit(task(L2Kind::LoadSubmitted, rid, next_task_, found, false));
      emit(done(L2Kind::LoadCompleted, rid, next_task_++, all));
      emit(task(L2Kind::UnlockSubmitted, rid, -1, found, false));
    }
    if (!missed.empty()) store(missed);
    if (rid % 100 == 99 && !stored_.empty()) evict_one(c);
  }

  void finish() {
    L2Record end;
    end.kind = L2Kind::TraceEnd;
    emit(end);
    w_.close();
  }
  uint64_t records() const { return records_; }

 private:
  static fleet::trace::Header header() {
    fleet::trace::Header h;
    h.level = "l2";
    return h;
  }
  L2Record task(L2Kind kind, int64_t rid, int64_t id, const std::vector<ObjectKey>& keys,
                bool layout) {
    L2Record r;
    r.kind = kind;
    if (rid >= 0) r.request_id = rid;
    if (id >= 0) r.task_id = id;
    r.l2_name = "mock";
    r.keys = keys;
    if (kind == L2Kind::LoadSubmitted || kind == L2Kind::StoreSubmitted)
      r.object_sizes.assign(keys.size(), kObjectBytes);
    if (layout) {
      r.group_layouts[0].shapes = {{kObjectBytes}};
      r.group_layouts[0].dtypes = {fleet::trace::DType::UInt8};
    }
    return r;
  }
  L2Record done(L2Kind kind, int64_t rid, int64_t id, std::vector<int64_t> indices) {
    L2Record r = task(kind, rid, id, {}, false);
    r.indices = std::move(indices);
    r.succeeded_count = 1;
    return r;
  }
  void store(const std::vector<ObjectKey>& keys) {
    emit(task(L2Kind::StoreSubmitted, -1, next_task_, keys, false));
    L2Record d = done(L2Kind::StoreCompleted, -1, next_task_++, {});
    d.succeeded_count = static_cast<int64_t>(keys.size());
    emit(d);
    for (const auto& k : keys) {
      uint64_t id;
      std::memcpy(&id, k.chunk_hash.view().data(), 8);
      stored_.insert(id);
    }
  }
  void evict_one(int c) {  // the conversation's first chunk, if it is still there
    const uint64_t id = static_cast<uint64_t>(c) << 32;
    if (!stored_.erase(id)) return;
    L2Record r = task(L2Kind::DeleteSubmitted, -1, -1, {key_of(id)}, false);
    r.adapter_index = -1;
    r.l2_name = "MockL2Adapter";
    emit(r);
  }
  void emit(L2Record r) {
    r.t_mono = t_;
    r.t_wall = 1.7e9 + t_;
    t_ += step_;
    w_.write_frame(fleet::trace::encode_l2_record_body(r));
    ++records_;
  }

  fleet::trace::TraceWriter w_;
  double step_;
  double t_ = 1.0;
  int64_t next_task_ = 0;
  uint64_t records_ = 0;
  std::vector<int> length_ = std::vector<int>(kConversations, 0);
  std::unordered_set<uint64_t> stored_;
};

}  // namespace

int main(int argc, char** argv) {
  const char* usage = "usage: l2_trace_gen OUT.lct [--requests N] [--rate R] [--seed S]\n";
  // OUT first; "--help" (or any flag) there is a question, not a file to write 300 MB into.
  if (argc < 2 || argv[1][0] == '-' || argc % 2 != 0) {
    std::fputs(usage, stderr);
    return 2;
  }
  int64_t requests = 100000;
  double rate = 10000;
  uint64_t seed = 1;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--requests")) {
      requests = std::atoll(argv[i + 1]);
    } else if (!std::strcmp(argv[i], "--rate")) {
      rate = std::atof(argv[i + 1]);
    } else if (!std::strcmp(argv[i], "--seed")) {
      seed = std::strtoull(argv[i + 1], nullptr, 10);
    } else {
      std::fprintf(stderr, "l2_trace_gen: unknown flag %s\n%s", argv[i], usage);
      return 2;
    }
  }
  std::mt19937_64 rng(seed);
  Gen gen(argv[1], rate);
  for (int64_t r = 0; r < requests; ++r) gen.request(r, rng);
  gen.finish();
  std::printf("l2_trace_gen: wrote %s: %lld requests, %llu records\n", argv[1],
              static_cast<long long>(requests), static_cast<unsigned long long>(gen.records()));
  return 0;
}
