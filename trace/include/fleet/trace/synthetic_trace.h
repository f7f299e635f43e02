// Deterministic synthetic LMCache storage traces (`lct gen`, tests, benchmarks): Poisson arrivals
// of multi-turn chat requests that share system-prompt prefixes and grow their context per turn.
// Each request prefetches its chunk keys, reads the hit prefix (enter/exit + finish_read) and
// writes the missed suffix (reserve_write -> finish_write, or abort_write in era 4). Same options
// and seed => same ops => same bytes: only std::mt19937_64 plus our own distributions are used,
// because std:: distributions differ between standard libraries.
#pragma once

#include <cstdint>
#include <deque>
#include <queue>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "fleet/trace/header.h"
#include "fleet/trace/op.h"
#include "fleet/trace/op_encoder.h"
#include "fleet/util/status.h"

namespace fleet::trace {

struct SyntheticOptions {
  uint64_t seed = 1;
  double duration_s = 60.0;  // arrivals stop at this t_mono (ignored when records/max_bytes set)
  uint64_t records = 0;      // > 0: stop admitting requests once this many records exist
  uint64_t max_bytes = 0;    // > 0: same, by file size (used by the writer driver)
  double rate = 10.0;        // requests per second (Poisson)
  Era era = Era::Three;
  int tp = 1;  // tensor-parallel ranks W: one key per rank (kv_rank)
  int models = 1;
  int groups = 1;  // object groups G
  int chunk_tokens = 256;
  // Whole-model KV geometry "KVxLAYERSxKV_HEADSxHEAD_DIM:DTYPE"; an object holds
  // [KV, LAYERS/G, chunk_tokens, KV_HEADS/W, HEAD_DIM] (rounded up).
  std::string layout = "2x32x8x128:bfloat16";
  int max_turns = 8;       // turns per conversation: uniform in [1, max_turns]
  int system_prompts = 8;  // shared system prompts, chosen Zipf(1)-like
  int max_context_tokens = 32768;
  uint64_t cache_chunks = 65536;  // modelled L1 capacity in chunks (FIFO) for hits/misses
  double abort_fraction = 0.02;   // era 4 only: writes that end in abort_write
  double l1_size_gb = 8.0;        // recording-side config written to the header
  double t_wall_start = 1764460800.0;
  double t_mono_start = 5000.0;
};

struct SyntheticStats {
  uint64_t requests = 0;
  uint64_t conversations = 0;
  uint64_t records = 0;
  uint64_t hit_chunks = 0;
  uint64_t miss_chunks = 0;
  uint64_t aborts = 0;
  uint64_t bytes = 0;  // filled by write_synthetic_trace
  double last_t_mono = 0.0;
};

// Validates options: ok, or a kBadInput failure whose message names the flag, for the user.
Status validate_synthetic_options(const SyntheticOptions& o);

// The recording-side StorageManagerConfig JSON (Python json.dumps(sort_keys=True)) and a
// header carrying it with its SHA-256 digest.
std::string synthetic_config_json(const SyntheticOptions& o);
Header synthetic_header(const SyntheticOptions& o);

// Pull generator: next() yields ops in non-decreasing t_mono order.
class SyntheticTrace {
 public:
  explicit SyntheticTrace(const SyntheticOptions& o);  // throws std::invalid_argument
  bool next(Op& out);
  // Admit no further requests; pending records of admitted requests are still returned, so
  // every lifecycle in the file is complete.
  void stop_admitting() { closed_ = true; }
  const SyntheticStats& stats() const { return stats_; }

 private:
  struct Pending {
    double t;
    uint64_t seq;
    Op op;
  };
  struct Later {
    bool operator()(const Pending* a, const Pending* b) const {
      return a->t != b->t ? a->t > b->t : a->seq > b->seq;
    }
  };
  struct Conversation {
    uint64_t id;
    int model;
    int system_prompt;
    int turns_left;
    int64_t context_tokens;  // tokens before this turn's user message
  };

  double uniform();                                // [0, 1)
  uint64_t uniform_int(uint64_t lo, uint64_t hi);  // inclusive
  double exponential(double rate);
  void admit(double t);  // one request, in the phases below
  size_t pick_conversation();
  int64_t take_turn(size_t idx);
  std::vector<uint64_t> chunk_ids(const Conversation& c, int64_t n) const;
  int64_t cached_prefix(const std::vector<uint64_t>& ids, double t) const;
  void push_prefetch(double t, const Conversation& c, int64_t n, uint64_t req);
  void push_read(double t, const Conversation& c, int64_t hits);
  void push_writes(double t, const Conversation& c, int64_t n, int64_t hits,
                   const std::vector<uint64_t>& ids);
  void push(double t, Op op);
  void add_keys(std::vector<ObjectKey>& keys, const Conversation& c, int64_t first, int64_t end);
  std::string chunk_hash(const Conversation& c, int64_t j) const;

  SyntheticOptions o_;
  std::mt19937_64 rng_;
  MemoryLayout layout_;
  std::vector<std::string> model_names_;
  std::vector<int64_t> prompt_tokens_;
  std::vector<double> prompt_cdf_;
  std::vector<Conversation> active_;
  uint64_t next_conversation_ = 0;
  double next_arrival_ = 0.0;
  bool closed_ = false;
  uint64_t seq_ = 0;
  std::priority_queue<Pending*, std::vector<Pending*>, Later> heap_;
  std::deque<Pending> pool_storage_;  // stable addresses for heap entries
  std::vector<Pending*> free_;
  std::unordered_map<uint64_t, double> cache_;  // chunk id -> time it became readable
  std::deque<uint64_t> fifo_;
  SyntheticStats stats_;
};

// Writes a synthetic trace to `path` with TraceWriter; honours records/max_bytes/duration.
SyntheticStats write_synthetic_trace(const std::string& path, const SyntheticOptions& o);

}  // namespace fleet::trace
