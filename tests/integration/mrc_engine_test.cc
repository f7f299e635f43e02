// `lct mrc`'s LRU curve against the native engine replaying the same trace at three L1 sizes
// (docs/lct.md § "Why the engine's hit rate differs").
//
// The era-3 engine is a pure byte LRU over lookups only on a trace built for it:
//  * every access is submit_prefetch_task (PREFIX, LOOKUP, one key, no L2), then
//    finish_read_prefetched (no lock is left to pin anything), then reserve_write mode "all" +
//    finish_write of the same key: a miss inserts the object, a hit rewrites it in place, and
//    either way finish_write makes it most recent (an era-3 L1 hit alone never does, §3.2);
//  * eviction removes one key per 10 ms tick (ratio 0.0001) while usage >= the watermark, and
//    accesses are 1 s apart, so it always settles before the next lookup; the watermark is set
//    half a page above K pages, so settled usage is the largest most-recent set of at most K
//    pages — an LRU of K * 4096 bytes;
//  * object sizes are whole pages (no alignment slack) in a heap far larger than the watermark
//    (no fragmentation refusal: checked).
// Then the engine's cache.lookup.l1.keys equals the curve's lookup hits at K * 4096 bytes
// exactly. With mode "new" instead of "all" a hit does not refresh recency and the engine is a
// FIFO over inserts: its hits equal a FIFO simulation, not the curve.
#include <cstdio>
#include <deque>
#include <random>

#include "fleet/trace/trace_writer.h"
#include "fleet_fixture.h"
#include "mrc/miss_ratio_curve.h"
#include "mrc/mrc_stream.h"

namespace fleet::test {
namespace {

using trace::OpKind;

constexpr uint64_t kPage = 4096;
constexpr uint64_t kHeapBytes = 1 << 20;  // 256 pages, --no-l1-use-lazy

struct Access {
  uint32_t key;
  uint64_t pages;  // object size
};

// 600 accesses over 50 keys: re-use of recent keys, popular keys and random ones.
std::vector<Access> access_pattern(uint64_t seed, bool varied_sizes) {
  std::mt19937_64 rng(seed);
  std::vector<Access> out;
  auto pages = [&](uint32_t k) { return varied_sizes ? 1 + k % 3 : 1; };
  for (int i = 0; i < 600; ++i) {
    uint32_t k;
    uint64_t pick = rng() % 10;
    if (pick < 3 && !out.empty()) {
      k = out[out.size() - 1 - rng() % std::min<size_t>(out.size(), 12)].key;
    } else if (pick < 7) {
      double u = std::uniform_real_distribution<double>(0, 1)(rng);
      k = static_cast<uint32_t>(u * u * 50);
    } else {
      k = static_cast<uint32_t>(rng() % 50);
    }
    out.push_back({k, pages(k)});
  }
  return out;
}

trace::MemoryLayout layout_of(uint64_t pages) {  // [2, 4, 16, 2, 8 * pages] bfloat16
  trace::MemoryLayout l;
  l.shapes = {{2, 4, 16, 2, static_cast<int64_t>(8 * pages)}};
  l.dtypes = {trace::DType::BFloat16};
  return l;
}

std::string write_trace(const std::string& path, const std::vector<Access>& accesses,
                        trace::WriteMode mode) {
  trace::TraceWriter w(path, trace::Header{});
  double t = 0;
  for (const Access& a : accesses) {
    trace::ObjectKey key;
    key.chunk_hash = "chunk-" + std::to_string(a.key);
    key.model_name = "m";
    trace::Op op;
    op.t_mono = t;
    op.t_wall = 1.7e9 + t;
    auto put = [&](OpKind kind, double dt) {
      op.kind = kind;
      op.t_mono = t + dt;
      op.t_wall = 1.7e9 + op.t_mono;
      w.write_op(op, trace::Era::Three);
    };
    op.spec.keys = {key};
    op.spec.group_layouts[0] = layout_of(a.pages);
    put(OpKind::SubmitPrefetch, 0);
    op.keys = {key};
    op.read_locks = 1;
    put(OpKind::FinishRead, 0.002);
    op.layout = layout_of(a.pages);
    op.mode = mode;
    put(OpKind::ReserveWrite, 0.004);
    put(OpKind::FinishWrite, 0.006);
    t += 1.0;
  }
  w.close();
  return path;
}

std::string num(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

// The engine's L1 lookup hits and OOM refusals with an L1 that settles at `pages` pages.
struct EngineHits {
  uint64_t l1 = 0, requested = 0, refused_oom = 0;
};
EngineHits replay(const std::string& trace, uint64_t pages, const std::string& dir) {
  double watermark = static_cast<double>(pages * kPage + kPage / 2) / kHeapBytes;
  RunResult r = run_coordinator(
      quick_args({trace, "--clock", "virtual", "--l1-size-gb",
                  num(static_cast<double>(kHeapBytes) / (1 << 30)), "--no-l1-use-lazy",
                  "--eviction-trigger-watermark", num(watermark), "--eviction-ratio", "0.0001",
                  "--eviction-tick-ms", "10"}),
      dir);
  EXPECT_EQ(r.code, 0) << r.err;
  const auto& c = r.summary["cache"];
  return {c["lookup"]["l1"]["keys"].get<uint64_t>(),
          c["lookup"]["requested"]["keys"].get<uint64_t>(),
          c["writes"]["refused_oom"]["keys"].get<uint64_t>()};
}

uint64_t fifo_hits(const std::vector<Access>& accesses, uint64_t capacity_pages) {
  std::deque<Access> queue;  // oldest insert first
  uint64_t used = 0, hits = 0;
  for (const Access& a : accesses) {
    bool hit =
        std::any_of(queue.begin(), queue.end(), [&](const Access& q) { return q.key == a.key; });
    if (hit) {
      ++hits;
      continue;
    }
    queue.push_back(a);
    for (used += a.pages; used > capacity_pages; queue.pop_front()) used -= queue.front().pages;
  }
  return hits;
}

struct CurveHits {
  mrc::AccessStream stream;
  mrc::MissRatioCurve curve;
  uint64_t lookup_hits(uint64_t bytes) const {
    return stream.trace_counts.lookups - curve.histogram().misses(bytes).lookups;
  }
};
CurveHits curve_of(const std::string& path) {
  trace::FrameReader reader(path);
  mrc::AccessStreamBuilder b;
  mrc::add_records(reader, b);
  CurveHits c{b.finish(), {}};
  c.curve = mrc::MissRatioCurve::compute(c.stream);
  return c;
}

class MrcEngine : public ::testing::TestWithParam<bool> {};  // varied object sizes?

TEST_P(MrcEngine, LruTraceHitsEqualTheCurveAtThreeSizes) {
  ScratchDir dir;
  auto accesses = access_pattern(GetParam() ? 21 : 20, GetParam());
  std::string path = write_trace(dir / "lru.lct", accesses, trace::WriteMode::All);
  CurveHits curve = curve_of(path);
  ASSERT_EQ(curve.stream.trace_counts.lookups, accesses.size());
  for (uint64_t pages : {6, 12, 24}) {
    SCOPED_TRACE(std::to_string(pages) + " pages");
    EngineHits e = replay(path, pages, dir / ("run" + std::to_string(pages)));
    EXPECT_EQ(e.refused_oom, 0u);  // no fragmentation: the comparison is valid
    EXPECT_EQ(e.requested, accesses.size());
    EXPECT_EQ(e.l1, curve.lookup_hits(pages * kPage));
    std::printf("[mrc-engine] %s sizes, L1 %llu pages: engine %llu hits, LRU curve %llu\n",
                GetParam() ? "varied" : "uniform", static_cast<unsigned long long>(pages),
                static_cast<unsigned long long>(e.l1),
                static_cast<unsigned long long>(curve.lookup_hits(pages * kPage)));
  }
}

TEST_P(MrcEngine, WithoutTheRefreshTheEngineIsFifoNotTheCurve) {
  ScratchDir dir;
  auto accesses = access_pattern(GetParam() ? 21 : 20, GetParam());
  std::string path = write_trace(dir / "fifo.lct", accesses, trace::WriteMode::New);
  CurveHits curve = curve_of(path);  // the same key stream as the LRU trace
  bool differs = false;
  for (uint64_t pages : {6, 12, 24}) {
    SCOPED_TRACE(std::to_string(pages) + " pages");
    EngineHits e = replay(path, pages, dir / ("run" + std::to_string(pages)));
    EXPECT_EQ(e.refused_oom, 0u);
    EXPECT_EQ(e.l1, fifo_hits(accesses, pages));
    differs |= e.l1 != curve.lookup_hits(pages * kPage);
    std::printf(
        "[mrc-engine] %s sizes, L1 %llu pages, no refresh: engine %llu hits (FIFO), "
        "LRU curve %llu\n",
        GetParam() ? "varied" : "uniform", static_cast<unsigned long long>(pages),
        static_cast<unsigned long long>(e.l1),
        static_cast<unsigned long long>(curve.lookup_hits(pages * kPage)));
  }
  EXPECT_TRUE(differs);
}

INSTANTIATE_TEST_SUITE_P(Sizes, MrcEngine, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Varied" : "Uniform"; });

}  // namespace
}  // namespace fleet::test
