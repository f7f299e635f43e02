#include "fleet/wire/node_result.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <set>
#include <vector>

#include "fleet/stats/fsum.h"
#include "fleet/stats/l2_failures_json.h"
#include "fleet/stats/radix_sort.h"
#include "fleet/trace/msgpack_reader.h"
#include "fleet/util/big_endian.h"
#include "fleet/util/json_number.h"
#include "fleet/wire/node_result_shape.h"
#include "fleet/wire/ns_samples.h"
#include "fleet/wire/protocol.h"

namespace fleet::wire {

namespace {

static_assert(std::endian::native == std::endian::little,
              "samples travel as little-endian IEEE doubles");

// Layout: u32 BE length of a msgpack map (everything but the samples, below), then every
// qualname's samples, ascending, in the map's qualname order: whole nanoseconds as LEB128
// deltas where the map says "samples_ns_leb128" (their byte count; wire/ns_samples.h), else raw
// little-endian doubles (samples that are not whole ns; older workers). Raw bytes, not
// a msgpack array or bin: one memcpy each way (JSON values per sample, and nlohmann's bytewise
// bin reader, were most of the coordinator's merge). The node sorts its samples and sends its
// histogram, so the coordinator merges sorted runs in linear time and re-records nothing.
// The map's "pad" (a bin of 0-7 bytes) puts the samples at a multiple of 8 bytes from the
// start of the DONE message: the coordinator reads raw samples where they arrived, as doubles.

// The exact sum's partials of all of `s`'s samples, block by block: the coordinator's mean over
// every node then costs a few doubles per node instead of a pass over every sample.
std::optional<std::vector<double>> sum_partials(const stats::OpStats& s) {
  std::vector<double> blocks;
  bool finite = true;
  s.for_each_sample_block([&](const double* data, std::size_t n) {
    auto p = finite ? stats::fsum_partials({data, n}) : std::nullopt;
    if (!p) {
      finite = false;
      return;
    }
    blocks.insert(blocks.end(), p->begin(), p->end());
  });
  if (!finite) return std::nullopt;
  return stats::fsum_partials(blocks);  // same exact sum, fewer doubles
}

// Each miss as 18 bytes: t_wall (IEEE double) and key (u64), little-endian, then where and class.
constexpr size_t kMissEventBytes = 18;

std::vector<uint8_t> pack_miss_events(const std::vector<stats::MissEvent>& events) {
  std::vector<uint8_t> out(events.size() * kMissEventBytes);
  uint8_t* p = out.data();
  for (const stats::MissEvent& e : events) {
    std::memcpy(p, &e.record, 8);
    std::memcpy(p + 8, &e.key, 8);
    p[16] = static_cast<uint8_t>(e.where);
    p[17] = static_cast<uint8_t>(e.cls);
    p += kMissEventBytes;
  }
  return out;
}

std::vector<stats::MissEvent> unpack_miss_events(const nlohmann::json& j) {
  if (!j.is_binary()) throw ProtocolError("miss_events: expected bin");
  const auto& bytes = j.get_binary();
  if (bytes.size() % kMissEventBytes != 0) throw ProtocolError("miss_events: not whole events");
  const size_t n = bytes.size() / kMissEventBytes;
  if (n > stats::MissSummary::kMaxLoggedEvents)
    throw ProtocolError("miss_events: more than " +
                        std::to_string(stats::MissSummary::kMaxLoggedEvents) + " events");
  std::vector<stats::MissEvent> out(n);
  const uint8_t* p = bytes.data();
  for (stats::MissEvent& e : out) {
    std::memcpy(&e.record, p, 8);
    std::memcpy(&e.key, p + 8, 8);
    if (p[16] >= stats::kMissWhereCount || p[17] >= stats::kMissClassCount ||
        !std::isfinite(e.record))
      throw ProtocolError("miss_events: an event out of range");
    e.where = static_cast<stats::MissWhere>(p[16]);
    e.cls = static_cast<stats::MissClass>(p[17]);
    p += kMissEventBytes;
  }
  return out;
}

// One qualname's samples, sorted, as they travel: whole nanoseconds as LEB128 deltas when every
// sample is one (wire/ns_samples.h), else raw little-endian doubles.
struct SamplePart {
  std::string bytes;
  bool ns = false;
};

// In c.ops()'s order, which is the map's (both sorted by qualname).
std::vector<SamplePart> sample_parts(const stats::StatsCollector& c) {
  std::vector<SamplePart> parts;
  util::HugeVector<double> sorted;  // megabytes: fresh 4 KiB pages would cost more than the sort
  for (const auto& [q, s] : c.ops()) {
    sorted.clear();
    sorted.reserve(s.count());
    s.for_each_sample_block(
        [&](const double* data, std::size_t n) { sorted.insert(sorted.end(), data, data + n); });
    stats::sort_doubles(sorted.data(), sorted.size());
    if (std::optional<std::string> ns = encode_ns_samples(sorted.data(), sorted.size())) {
      parts.push_back({std::move(*ns), true});
    } else {
      parts.push_back({std::string(reinterpret_cast<const char*>(sorted.data()),
                                   sorted.size() * sizeof(double)),
                       false});
    }
  }
  return parts;
}

nlohmann::json stats_meta(const stats::StatsCollector& c, const std::vector<SamplePart>& parts) {
  nlohmann::json ops = nlohmann::json::object();
  size_t i = 0;
  for (const auto& [q, s] : c.ops()) {
    ops[q] = {{"errors", s.errors()},
              {"count", s.count()},
              {"histogram", s.histogram().to_json_raw_buckets()}};
    if (auto partials = sum_partials(s)) ops[q]["sum_partials"] = *partials;
    if (parts[i].ns) ops[q]["samples_ns_leb128"] = parts[i].bytes.size();
    ++i;
  }
  return ops;
}

// `samples` holds the raw section; returns how many of its bytes the stats used.
// How many samples travel packed (wire/ns_samples.h) in all: they are decoded into one array
// per node, on huge pages (qualname by qualname, each a fresh heap block, they faulted in 4 KiB
// pages: ~15 ms of a 1M-record run's coordinator). Each count is at most its byte count, and
// those bytes must fit in the section: the array is bounded by the message.
uint64_t packed_sample_count(const nlohmann::json& meta, std::string_view samples) {
  uint64_t count = 0, bytes = 0;
  for (auto it = meta.begin(); it != meta.end(); ++it) {
    if (!it.value().is_object() || !it.value().contains("samples_ns_leb128")) continue;
    const auto n = util::json_integer<uint64_t>(it.value().at("count"), "count");
    const auto b =
        util::json_integer<uint64_t>(it.value()["samples_ns_leb128"], "samples_ns_leb128");
    if (b > samples.size() - bytes)
      throw ProtocolError("samples of " + it.key() + ": " + std::to_string(b) +
                          " bytes announced, the message ends first");
    if (n > b)
      throw ProtocolError("samples of " + it.key() + ": " + std::to_string(n) + " announced in " +
                          std::to_string(b) + " bytes");
    bytes += b;
    count += n;
  }
  return count;
}

// A worker's latency samples must be latencies: finite and not negative (a NaN made the merged
// mean and percentiles NaN and report.html unwritable), and its exact sum (sum_partials), when
// sent, within n times their least and greatest (it is what the merged mean is made of).
void check_samples(const char* at, uint64_t n, const std::vector<double>* partials,
                   const std::string& op) {
  double lo = 0, hi = 0;
  for (uint64_t i = 0; i < n; ++i) {
    double v;
    std::memcpy(&v, at + i * sizeof(double), sizeof v);
    if (!(v >= 0) || !std::isfinite(v))
      throw ProtocolError("samples of " + op + ": sample " + std::to_string(i) + " is " +
                          std::to_string(v) + " (a latency is finite and not negative)");
    lo = i == 0 ? v : std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (!partials) return;
  double sum = 0;
  for (double p : *partials) sum += p;
  // Relative rounding, and 1 ns a sample: packed samples are whole ns, the sum is not.
  const double slack = (1e-6 * hi + 1e-6) * static_cast<double>(n) + 1e-9;
  const double count = static_cast<double>(n);
  if (!std::isfinite(sum) || sum < lo * count - slack || sum > hi * count + slack)
    throw ProtocolError("samples of " + op + ": sum_partials add up to " + std::to_string(sum) +
                        ", outside what " + std::to_string(n) + " samples can sum to");
}

// A worker's own L2 failures: one node each (a DONE saying "nodes": 10^9 counted as many), and
// each adapter once.
std::vector<stats::L2FailureRecord> node_l2_failures(const nlohmann::json& j) {
  std::vector<stats::L2FailureRecord> out = stats::l2_failures_from_json(j);
  std::set<std::pair<int, std::string>> seen;
  for (stats::L2FailureRecord& f : out) {
    f.nodes = 1;
    if (!seen.emplace(f.adapter, f.type).second)
      throw ProtocolError("l2_failures: adapter " + std::to_string(f.adapter) + " (" + f.type +
                          ") listed twice");
  }
  return out;
}

size_t stats_from_meta(const nlohmann::json& meta, std::string_view samples,
                       stats::StatsCollector& c, const std::shared_ptr<const void>& owner) {
  const auto unpacked =
      std::make_shared<util::HugeVector<double>>(packed_sample_count(meta, samples));
  size_t pos = 0, unpacked_pos = 0;
  for (auto it = meta.begin(); it != meta.end(); ++it) {
    const uint64_t n = util::json_integer<uint64_t>(it.value().at("count"), "count");
    if (!it.value().contains("samples_ns_leb128") && n > (samples.size() - pos) / sizeof(double)) {
      throw ProtocolError("samples of " + it.key() + ": " + std::to_string(n) +
                          " announced, the message ends first");
    }
    const auto histogram =
        stats::LogLinearHistogram::from_json_raw_buckets(it.value().at("histogram"));
    if (histogram.count() != n) {
      throw ProtocolError("samples of " + it.key() + ": histogram counts " +
                          std::to_string(histogram.count()) + ", samples " + std::to_string(n));
    }
    std::vector<double> partials;
    bool have_partials = it.value().contains("sum_partials");
    if (have_partials) {
      partials = it.value()["sum_partials"].get<std::vector<double>>();
      for (double p : partials) have_partials = have_partials && std::isfinite(p);
    }
    const char* at = samples.data() + pos;
    const uint64_t errors = util::json_integer<uint64_t>(it.value().at("errors"), "errors");
    const std::vector<double>* sums = have_partials ? &partials : nullptr;
    if (!it.value().contains("samples_ns_leb128")) check_samples(at, n, sums, it.key());
    if (it.value().contains("samples_ns_leb128")) {
      const auto bytes =
          util::json_integer<uint64_t>(it.value()["samples_ns_leb128"], "samples_ns_leb128");
      if (bytes > samples.size() - pos)
        throw ProtocolError("samples of " + it.key() + ": " + std::to_string(bytes) +
                            " bytes announced, the message ends first");
      double* values = unpacked->data() + unpacked_pos;  // bounds: packed_sample_count
      decode_ns_samples(samples.substr(pos, bytes), values, n, it.key());
      check_samples(reinterpret_cast<const char*>(values), n, sums, it.key());
      c.op(it.key()).merge_encoded_shared(unpacked, values, n, errors, histogram, sums);
      pos += bytes;
      unpacked_pos += n;
    } else if (owner && reinterpret_cast<std::uintptr_t>(at) % alignof(double) == 0) {
      c.op(it.key()).merge_encoded_shared(owner, reinterpret_cast<const double*>(at), n, errors,
                                          histogram, sums);
      pos += n * sizeof(double);
    } else {
      c.op(it.key()).merge_encoded(at, n, errors, histogram, sums);
      pos += n * sizeof(double);
    }
  }
  return pos;
}

}  // namespace

namespace {

// The node result's bytes after `prefix` (empty, or a DONE message's header whose bin field
// is the result), in one exact allocation: the samples are written once.
template <class String>
String encode_after(const NodeResult& r, const std::function<String(size_t)>& prefix) {
  const std::vector<SamplePart> parts = sample_parts(r.stats);
  nlohmann::json j = {
      {"name", r.name},
      {"address", r.address},
      {"status", node_status_name(r.status)},
      {"total", r.total},
      {"replayed", r.replayed},
      {"skipped", r.skipped},
      {"failed", r.failed},
      {"duration_s", r.duration_s},
      {"stats", stats_meta(r.stats, parts)},
      {"lateness", r.lateness.to_json()},
      {"feed_late", r.feed_late},
      {"engine_late", r.engine_late},
      {"engine_name", r.engine_name},
      {"config_digest", r.config_digest},
      {"engine_config", r.engine_config},
      {"engine_counters", r.engine_counters},
      {"l2_windows", r.l2_windows},
      {"clock_offset_ns", r.clock_offset_ns},
      {"clock_uncertainty_ns", r.clock_uncertainty_ns},
      {"start_skew_ns", r.start_skew_ns},
      {"dispatch_exits_without_enter", r.dispatch_exits_without_enter},
      {"dangling_contexts_closed", r.dangling_contexts_closed},
      {"records_received", r.records_received},
  };
  // Only when some L2 operation failed: a DONE without failures stays byte for byte as it was.
  if (!r.l2_failures.empty()) j["l2_failures"] = stats::l2_failures_json(r.l2_failures);
  if (r.pacing) j["pacing"] = r.pacing->to_json();  // likewise: only runs that tracked edges
  if (r.misses) {                                   // only runs that classified misses
    j["misses"] = r.misses->to_json();
    j["miss_events"] = nlohmann::json::binary(pack_miss_events(r.miss_events));
  }
  if (r.self_route.is_object()) j["self_route"] = r.self_route;  // only workers that routed
  if (r.l2_replay.is_object()) j["l2_replay"] = r.l2_replay;     // only L2 replays
  size_t samples = 0;
  for (const SamplePart& p : parts) samples += p.bytes.size();
  // Pad so that prefix + length + map is a multiple of 8 (the prefix's own size depends on the
  // total: settle it in a few rounds).
  std::vector<uint8_t> meta;
  String out;
  for (size_t pad = 0, round = 0;; ++round) {
    j["pad"] = nlohmann::json::binary(std::vector<uint8_t>(pad, 0));
    meta = nlohmann::json::to_msgpack(j);
    out = prefix(4 + meta.size() + samples);
    const size_t misaligned = (out.size() + 4 + meta.size()) % 8;
    if (misaligned == 0 || round == 8) break;
    pad = (pad + 8 - misaligned) % 8;
  }
  out.reserve(out.size() + 4 + meta.size() + samples);  // one allocation
  char len[4];
  util::store_be32(len, static_cast<uint32_t>(meta.size()));
  out.append(len, 4);
  out.append(reinterpret_cast<const char*>(meta.data()), meta.size());
  for (const SamplePart& p : parts) out.append(p.bytes.data(), p.bytes.size());
  return out;
}

}  // namespace

std::string encode_node_result(const NodeResult& r) {
  return encode_after<std::string>(r, [](size_t) { return std::string(); });
}

util::HugeString encode_done_message(const NodeResult& r) {
  return encode_after<util::HugeString>(r, [](size_t size) {
    msgpack::sbuffer head;
    msgpack::packer<msgpack::sbuffer> pk(head);
    const Done d;  // its fields, with `result` written as the bin header alone
    pk.pack_map(3);
    pk.pack(std::string_view("v"));
    pk.pack(d.v);
    pk.pack(std::string_view("t"));
    pk.pack(d.t);
    pk.pack(std::string_view("result"));
    pk.pack_bin(static_cast<uint32_t>(size));
    return util::HugeString(head.data(), head.size());
  });
}

NodeResult decode_node_result(std::string_view bytes, std::shared_ptr<const void> owner) {
  try {
    if (bytes.size() < 4) throw ProtocolError("node result shorter than its header");
    const uint32_t meta_size = util::load_be32(reinterpret_cast<const uint8_t*>(bytes.data()));
    if (meta_size > bytes.size() - 4) throw ProtocolError("node result ends inside its header map");
    const std::string_view meta = bytes.substr(4, meta_size);
    const std::string_view samples = bytes.substr(4 + meta_size);
    // nlohmann's msgpack reader recurses once per nesting level: arrays nested some 50 000
    // deep (as many bytes of 0x91) overflow the stack. Ours nest a few levels; the bounded,
    // iterative skip refuses anything deeper than MsgpackLimits' 64 first.
    trace::MsgpackReader(reinterpret_cast<const uint8_t*>(meta.data()), meta.size()).skip();
    nlohmann::json j = nlohmann::json::from_msgpack(meta.begin(), meta.end());
    NodeResult r;
    r.name = j.at("name").get<std::string>();
    r.address = j.value("address", "");
    r.status = status_of(j.at("status").get<std::string>());
    r.total = util::json_integer<uint64_t>(j.at("total"), "total");
    r.replayed = util::json_integer<uint64_t>(j.at("replayed"), "replayed");
    r.skipped = util::json_integer<uint64_t>(j.at("skipped"), "skipped");
    r.failed = util::json_integer<uint64_t>(j.at("failed"), "failed");
    uint64_t finished = 0;  // replayed + skipped + failed: at most total (less when stopped)
    if (__builtin_add_overflow(r.replayed, r.skipped, &finished) ||
        __builtin_add_overflow(finished, r.failed, &finished) || finished > r.total) {
      throw ProtocolError("records: replayed " + std::to_string(r.replayed) + " + skipped " +
                          std::to_string(r.skipped) + " + failed " + std::to_string(r.failed) +
                          " exceed total " + std::to_string(r.total));
    }
    r.duration_s = j.at("duration_s").get<double>();
    if (stats_from_meta(j.at("stats"), samples, r.stats, owner) != samples.size()) {
      throw ProtocolError("node result has bytes after its samples");
    }
    r.lateness = stats::LatenessStats::from_json(j.at("lateness"));
    r.feed_late = util::json_integer_or<uint64_t>(j, "feed_late", uint64_t{0}, "feed_late");
    r.engine_late = util::json_integer_or<uint64_t>(j, "engine_late", uint64_t{0}, "engine_late");
    r.engine_name = j.value("engine_name", "");
    r.config_digest = j.value("config_digest", "");
    r.engine_config = j.value("engine_config", nlohmann::json::object());
    r.engine_counters = j.value("engine_counters", nlohmann::json::object());
    r.l2_windows = j.value("l2_windows", nlohmann::json::object());
    if (j.contains("l2_failures")) r.l2_failures = node_l2_failures(j["l2_failures"]);
    r.clock_offset_ns =
        util::json_integer_or<int64_t>(j, "clock_offset_ns", int64_t{0}, "clock_offset_ns");
    r.clock_uncertainty_ns = util::json_integer_or<int64_t>(j, "clock_uncertainty_ns", int64_t{0},
                                                            "clock_uncertainty_ns");
    r.start_skew_ns =
        util::json_integer_or<int64_t>(j, "start_skew_ns", int64_t{0}, "start_skew_ns");
    r.dispatch_exits_without_enter = util::json_integer_or<uint64_t>(
        j, "dispatch_exits_without_enter", uint64_t{0}, "dispatch_exits_without_enter");
    r.dangling_contexts_closed = util::json_integer_or<uint64_t>(
        j, "dangling_contexts_closed", uint64_t{0}, "dangling_contexts_closed");
    r.records_received =
        util::json_integer_or<uint64_t>(j, "records_received", uint64_t{0}, "records_received");
    if (j.contains("pacing")) r.pacing = causal::PacingStats::from_json(j["pacing"]);
    if (j.contains("misses")) {
      r.misses = stats::MissSummary::from_json(j["misses"]);
      if (j.contains("miss_events")) r.miss_events = unpack_miss_events(j["miss_events"]);
    }
    if (j.contains("self_route") && j["self_route"].is_object()) r.self_route = j["self_route"];
    if (j.contains("l2_replay") && j["l2_replay"].is_object()) r.l2_replay = j["l2_replay"];
    check_report_fields(r);
    return r;
  } catch (const std::exception& e) {
    throw ProtocolError(std::string("malformed node result: ") + e.what());
  }
}

}  // namespace fleet::wire
