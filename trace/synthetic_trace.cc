#include "fleet/trace/synthetic_trace.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "fleet/trace/trace_writer.h"
#include "fleet/util/pyjson.h"
#include "fleet/util/sha256.h"

namespace fleet::trace {

namespace {

constexpr const char* kModelNames[] = {
    "meta-llama/Llama-3.1-8B",
    "Qwen/Qwen2.5-7B-Instruct",
    "mistralai/Mistral-7B-Instruct-v0.3",
    "meta-llama/Llama-3.1-70B-Instruct",
    "google/gemma-2-9b-it",
    "microsoft/phi-4",
};

uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

uint64_t mix(uint64_t a, uint64_t b) { return splitmix(a ^ splitmix(b)); }

// "KVxLAYERSxHEADSxHEAD_DIM:DTYPE" -> per-object layout, or a message for the user.
Result<MemoryLayout> parse_layout(const SyntheticOptions& o) {
  auto colon = o.layout.find(':');
  if (colon == std::string::npos) {
    return Status::error(
        "--layout must look like KVxLAYERSxKV_HEADSxHEAD_DIM:DTYPE, e.g. 2x32x8x128:bfloat16");
  }
  std::string dims = o.layout.substr(0, colon);
  std::string dt = o.layout.substr(colon + 1);
  if (dt.rfind("torch.", 0) != 0) dt = "torch." + dt;
  auto dtype = parse_dtype(dt);
  if (!dtype) return Status::error("--layout: unknown dtype '" + o.layout.substr(colon + 1) + "'");
  std::vector<int64_t> v;
  size_t pos = 0;
  while (pos <= dims.size()) {
    size_t x = dims.find('x', pos);
    if (x == std::string::npos) x = dims.size();
    int64_t n = 0;
    auto r = std::from_chars(dims.data() + pos, dims.data() + x, n);
    if (r.ec != std::errc() || r.ptr != dims.data() + x || n <= 0) {
      return Status::error("--layout: '" + dims +
                           "' is not four positive integers separated by 'x'");
    }
    v.push_back(n);
    pos = x + 1;
  }
  if (v.size() != 4) {
    return Status::error("--layout needs exactly four dimensions KVxLAYERSxKV_HEADSxHEAD_DIM");
  }
  auto ceil_div = [](int64_t a, int64_t b) { return std::max<int64_t>(1, (a + b - 1) / b); };
  MemoryLayout out;
  out.shapes = {{v[0], ceil_div(v[1], o.groups), o.chunk_tokens, ceil_div(v[2], o.tp), v[3]}};
  out.dtypes = {*dtype};
  return out;
}

}  // namespace

Status validate_synthetic_options(const SyntheticOptions& o) {
  if (o.era != Era::One && o.era != Era::Three && o.era != Era::Four) {
    return Status::error("--era must be 1, 3 or 4");
  }
  if (!(o.rate > 0) || !std::isfinite(o.rate)) return Status::error("--rate must be > 0");
  if (o.records == 0 && o.max_bytes == 0 && (!(o.duration_s > 0) || !std::isfinite(o.duration_s))) {
    return Status::error("--duration must be > 0 (or give --records)");
  }
  if (o.tp < 1 || o.tp > 255) return Status::error("--tp must be in 1..255");
  if (o.groups < 1 || o.groups > 64) return Status::error("--groups must be in 1..64");
  if (o.models < 1 || o.models > 10000) return Status::error("--models must be in 1..10000");
  if (o.chunk_tokens < 1 || o.chunk_tokens > 1 << 20) {
    return Status::error("--chunk-tokens must be in 1..1048576");
  }
  if (o.max_turns < 1) return Status::error("--turns must be >= 1");
  if (o.system_prompts < 1) return Status::error("--system-prompts must be >= 1");
  if (o.cache_chunks < 1) return Status::error("--cache-chunks must be >= 1");
  if (o.max_context_tokens < o.chunk_tokens) {
    return Status::error("--max-context must be >= --chunk-tokens");
  }
  if (!(o.abort_fraction >= 0 && o.abort_fraction <= 1)) {
    return Status::error("--abort-fraction must be in [0, 1]");
  }
  if (!(o.l1_size_gb > 0)) return Status::error("--l1-size-gb must be > 0");
  if (auto layout = parse_layout(o); !layout) return layout.status();
  return {};
}

std::string synthetic_config_json(const SyntheticOptions& o) {
  // Shaped like LMCache's StorageManagerConfig dict (as in the fixtures' headers).
  auto bytes = static_cast<int64_t>(o.l1_size_gb * 1073741824.0);
  nlohmann::json cfg = {
      {"eviction_config",
       {{"eviction_policy", "LRU"}, {"eviction_ratio", 0.2}, {"trigger_watermark", 0.8}}},
      {"l1_manager_config",
       {{"eviction", nullptr},
        {"memory_config",
         {{"align_bytes", 4096},
          {"init_size_in_bytes", bytes},
          {"shm_name", ""},
          {"size_in_bytes", bytes},
          {"use_hugepages", false},
          {"use_lazy", false}}},
        {"read_ttl_seconds", 300},
        {"tag", "_default"},
        {"write_ttl_seconds", 600}}},
      {"l2_adapter_config",
       {{"adapters",
         nlohmann::json::array(
             {{{"max_size_gb", 4.0}, {"mock_bandwidth_gb", 10.0}, {"type", "mock"}}})}}},
      {"prefetch_max_in_flight", 8},
      {"prefetch_policy", "default"},
      {"store_policy", "default"},
  };
  return util::py_json_dumps(cfg);
}

Header synthetic_header(const SyntheticOptions& o) {
  Header h;
  h.t_mono_start = o.t_mono_start;
  h.t_wall_start = o.t_wall_start;
  h.sm_config_json = synthetic_config_json(o);
  h.sm_config_digest = util::sha256_hex(h.sm_config_json);
  return h;
}

SyntheticTrace::SyntheticTrace(const SyntheticOptions& o) : o_(o), rng_(o.seed) {
  if (Status st = validate_synthetic_options(o_); !st) throw std::invalid_argument(st.message());
  layout_ = parse_layout(o_).value();  // valid: checked just above
  for (int m = 0; m < o_.models; ++m) {
    model_names_.push_back(m < static_cast<int>(std::size(kModelNames))
                               ? kModelNames[m]
                               : "synthetic/model-" + std::to_string(m));
  }
  double total = 0;
  for (int s = 0; s < o_.system_prompts; ++s) {
    prompt_tokens_.push_back(static_cast<int64_t>(uniform_int(256, 2048)));
    total += 1.0 / (s + 1);
    prompt_cdf_.push_back(total);
  }
  for (double& c : prompt_cdf_) c /= total;
  next_arrival_ = exponential(o_.rate);
}

double SyntheticTrace::uniform() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }

uint64_t SyntheticTrace::uniform_int(uint64_t lo, uint64_t hi) {
  // Multiply-shift: no modulo bias worth caring about and identical on every platform.
  unsigned __int128 m = static_cast<unsigned __int128>(rng_()) * (hi - lo + 1);
  return lo + static_cast<uint64_t>(m >> 64);
}

double SyntheticTrace::exponential(double rate) { return -std::log(1.0 - uniform()) / rate; }

std::string SyntheticTrace::chunk_hash(const Conversation& c, int64_t j) const {
  // Chunks wholly inside the system prompt are shared by every conversation using it; later
  // chunks belong to the conversation and stay the same as its context grows turn by turn.
  bool shared = (j + 1) * o_.chunk_tokens <= prompt_tokens_[c.system_prompt];
  uint64_t base = shared ? mix(o_.seed ^ 0x5157ull, static_cast<uint64_t>(c.system_prompt))
                         : mix(o_.seed ^ 0xc0417ull, c.id);
  uint64_t a = mix(base, static_cast<uint64_t>(j));
  uint64_t b = mix(a, 0x68617368ull);
  std::string h(16, '\0');
  for (int i = 0; i < 8; ++i) {
    h[i] = static_cast<char>(a >> (56 - 8 * i));
    h[8 + i] = static_cast<char>(b >> (56 - 8 * i));
  }
  return h;
}

// Keys of chunks [first, end) in chunk-major order: position j*G*W + g*W + r.
void SyntheticTrace::add_keys(std::vector<ObjectKey>& keys, const Conversation& c, int64_t first,
                              int64_t end) {
  for (int64_t j = first; j < end; ++j) {
    std::string hash = chunk_hash(c, j);
    for (int g = 0; g < o_.groups; ++g) {
      for (int r = 0; r < o_.tp; ++r) {
        ObjectKey k;
        k.chunk_hash = hash;
        k.model_name = model_names_[c.model];
        // LMCache packs (world_size, global_rank, local_world_size, local_rank), 8 bits each;
        // a single-rank recording writes 0, as the fixtures do.
        k.kv_rank = o_.tp == 1
                        ? 0
                        : (int64_t{o_.tp} << 24) | (int64_t{r} << 16) | (int64_t{o_.tp} << 8) | r;
        k.object_group_id = g;
        keys.push_back(std::move(k));
      }
    }
  }
}

void SyntheticTrace::push(double t, Op op) {
  Pending* p;
  if (!free_.empty()) {
    p = free_.back();
    free_.pop_back();
  } else {
    pool_storage_.emplace_back();
    p = &pool_storage_.back();
  }
  p->t = t;
  p->seq = seq_++;
  op.t_mono = t;
  op.t_wall = o_.t_wall_start + t;
  p->op = std::move(op);
  heap_.push(p);
}

// One request: a turn of a new or ongoing conversation, as prefetch, the read of its cached
// prefix and the write of the rest. The random draws happen in a fixed order (same seed, same
// bytes), so the phases below keep the order they had as one function.
void SyntheticTrace::admit(double t) {
  const size_t idx = pick_conversation();
  const Conversation c = active_[idx];  // as it was before this turn
  const int64_t n = take_turn(idx);
  if (n == 0) return;
  uint64_t req = stats_.requests++;
  const std::vector<uint64_t> ids = chunk_ids(c, n);
  const int64_t hits = cached_prefix(ids, t);
  stats_.hit_chunks += hits;
  stats_.miss_chunks += n - hits;
  // Era-4 prefetch has no codec (docs/trace-format.md §8 [OPEN] 2): LMCache drops it.
  if (o_.era != Era::Four) push_prefetch(t, c, n, req);
  if (hits > 0) push_read(t, c, hits);
  push_writes(t, c, n, hits, ids);
}

// A new conversation (its index in active_), or one of the active ones.
size_t SyntheticTrace::pick_conversation() {
  double mean_turns = (1.0 + o_.max_turns) / 2.0;
  if (!active_.empty() && !(active_.size() < 4096 && uniform() < 1.0 / mean_turns)) {
    return uniform_int(0, active_.size() - 1);
  }
  Conversation c;
  c.id = next_conversation_++;
  c.model = static_cast<int>(uniform_int(0, static_cast<uint64_t>(o_.models - 1)));
  double u = uniform();
  c.system_prompt = static_cast<int>(std::lower_bound(prompt_cdf_.begin(), prompt_cdf_.end(), u) -
                                     prompt_cdf_.begin());
  c.system_prompt = std::min(c.system_prompt, o_.system_prompts - 1);
  c.turns_left = static_cast<int>(uniform_int(1, static_cast<uint64_t>(o_.max_turns)));
  c.context_tokens = prompt_tokens_[c.system_prompt];
  active_.push_back(c);
  ++stats_.conversations;
  return active_.size() - 1;
}

// This turn's context, in whole chunks. The conversation grows by the user's message and the
// answer, and retires after its last turn or at the context limit.
int64_t SyntheticTrace::take_turn(size_t idx) {
  Conversation& live = active_[idx];
  int64_t context = live.context_tokens + static_cast<int64_t>(uniform_int(32, 512));
  int64_t n = std::min<int64_t>(context, o_.max_context_tokens) / o_.chunk_tokens;
  live.context_tokens = context + static_cast<int64_t>(uniform_int(64, 768));
  if (--live.turns_left == 0 || live.context_tokens >= o_.max_context_tokens) {
    active_[idx] = active_.back();
    active_.pop_back();
  }
  return n;
}

// The cache model's id of each of the first n chunks of c.
std::vector<uint64_t> SyntheticTrace::chunk_ids(const Conversation& c, int64_t n) const {
  std::vector<uint64_t> ids(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) {
    std::string h = chunk_hash(c, j);
    uint64_t w0 = 0;
    for (int i = 0; i < 8; ++i) w0 = (w0 << 8) | static_cast<unsigned char>(h[i]);
    ids[j] = mix(w0, static_cast<uint64_t>(c.model));
  }
  return ids;
}

// How many leading chunks the modelled L1 holds, readable at t.
int64_t SyntheticTrace::cached_prefix(const std::vector<uint64_t>& ids, double t) const {
  int64_t hits = 0;
  const auto n = static_cast<int64_t>(ids.size());
  while (hits < n) {
    auto it = cache_.find(ids[hits]);
    if (it == cache_.end() || it->second > t) break;
    ++hits;
  }
  return hits;
}

void SyntheticTrace::push_prefetch(double t, const Conversation& c, int64_t n, uint64_t req) {
  Op pf;
  pf.kind = OpKind::SubmitPrefetch;
  add_keys(pf.spec.keys, c, 0, n);
  pf.spec.group_layouts[0] = layout_;
  if (o_.era != Era::One) {  // era 1 has no AttnWindowDesc / per-group layouts
    pf.spec.attn.num_chunks_in_sw.assign(static_cast<size_t>(o_.groups), -1);
    pf.spec.attn.world_size = o_.tp;
    for (int g = 1; g < o_.groups; ++g) pf.spec.group_layouts[g] = layout_;
  }
  pf.external_request_id = "req-" + std::to_string(req);
  push(t, std::move(pf));
}

// The read of the hit prefix: __enter__, __exit__, finish_read.
void SyntheticTrace::push_read(double t, const Conversation& c, int64_t hits) {
  double enter = t + 0.0008 + 0.0012 * uniform();
  double exit = enter + 0.0002 + 0.00015 * static_cast<double>(hits) * (0.5 + uniform());
  double finish = exit + 0.00005 + 0.00025 * uniform();
  Op op;
  op.kind = OpKind::ReadEnter;
  add_keys(op.keys, c, 0, hits);
  Op ex = op;
  ex.kind = OpKind::ReadExit;
  Op fr = op;
  fr.kind = OpKind::FinishRead;
  fr.read_locks = 1;
  push(enter, std::move(op));
  push(exit, std::move(ex));
  push(finish, std::move(fr));
}

// The write of the missed chunks not already cached or in flight: reserve_write after the
// prefill, then finish_write (or, in era 4, sometimes abort_write); finished chunks enter the
// modelled L1 (FIFO).
void SyntheticTrace::push_writes(double t, const Conversation& c, int64_t n, int64_t hits,
                                 const std::vector<uint64_t>& ids) {
  std::vector<int64_t> writes;
  for (int64_t j = hits; j < n; ++j)
    if (!cache_.count(ids[j])) writes.push_back(j);  // in flight or cached: not rewritten
  if (writes.empty()) return;
  double prefill =
      0.004 + 0.006 * uniform() +
      static_cast<double>((n - hits) * o_.chunk_tokens) * 1e-5 * (0.8 + 0.4 * uniform());
  double t_res = t + prefill;
  double t_fin = t_res + 0.001 + 0.0003 * static_cast<double>(writes.size()) * (0.5 + uniform());
  Op res;
  res.kind = OpKind::ReserveWrite;
  for (int64_t j : writes) add_keys(res.keys, c, j, j + 1);
  res.layout = layout_;
  res.mode = WriteMode::New;
  Op fin;
  fin.keys = res.keys;
  bool abort = o_.era == Era::Four && uniform() < o_.abort_fraction;
  fin.kind = abort ? OpKind::AbortWrite : OpKind::FinishWrite;
  push(t_res, std::move(res));
  push(t_fin, std::move(fin));
  if (abort) {
    ++stats_.aborts;
    return;
  }
  for (int64_t j : writes) {
    if (cache_.size() >= o_.cache_chunks && !fifo_.empty()) {
      cache_.erase(fifo_.front());
      fifo_.pop_front();
    }
    cache_.emplace(ids[j], t_fin);
    fifo_.push_back(ids[j]);
  }
}

bool SyntheticTrace::next(Op& out) {
  for (;;) {
    if (!heap_.empty() && (closed_ || heap_.top()->t <= next_arrival_)) {
      Pending* p = heap_.top();
      heap_.pop();
      out = std::move(p->op);
      free_.push_back(p);
      ++stats_.records;
      stats_.last_t_mono = out.t_mono;
      return true;
    }
    if (closed_) return false;
    if (o_.records > 0) {
      if (stats_.records + heap_.size() >= o_.records) {
        closed_ = true;
        continue;
      }
    } else if (o_.max_bytes == 0 && next_arrival_ >= o_.duration_s) {
      closed_ = true;
      continue;
    }
    admit(next_arrival_);
    next_arrival_ += exponential(o_.rate);
  }
}

SyntheticStats write_synthetic_trace(const std::string& path, const SyntheticOptions& o) {
  SyntheticTrace gen(o);
  Header h = synthetic_header(o);
  TraceWriter w(path, h);
  uint64_t bytes = 4 + encode_header(h).size();
  Op op;
  while (gen.next(op)) {
    std::string body = encode_record_body(op, o.era, h.trace_schema_version);
    w.write_frame(body);
    bytes += 4 + body.size();
    if (o.max_bytes > 0 && bytes >= o.max_bytes) gen.stop_admitting();
  }
  w.close();
  SyntheticStats s = gen.stats();
  s.bytes = bytes;
  return s;
}

}  // namespace fleet::trace
