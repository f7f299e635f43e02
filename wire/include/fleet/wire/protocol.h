// The coordinator <-> worker protocol (docs/protocol.md): one msgpack map per ZeroMQ message,
// every message carrying the protocol version `v` and its type `t`. Decoding is bounded
// (message size, nesting, counts) and a malformed message is a ProtocolError naming why, never
// a crash: a garbage sender cannot harm a run.
#pragma once

#include <cstdint>
#include <msgpack.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fleet/stats/run_window.h"
#include "fleet/wire/liveness.h"

namespace fleet::wire {

// 2: Batch.codec, Batch.zstd -> Batch.data. 3: record references and the shared-trace
// handshake (Hello.trace_*, Welcome.trace_shared/trace_error), samples as raw doubles in DONE.
// 4: histogram buckets as bytes. 5: T0 from readiness (READY, GO; Start.t0_worker_ns gone).
// 6: masked record references (key sharding's split calls, wire/batch.h).
// 7: workers that route themselves (Start.self_routing; the DONE result's "self_route").
// 8: L2 adapter-level traces across the fleet (Start.l2; the DONE result's "l2_replay").
// 9: L2 fleet preparing (Start.l2.prepare / prepare_only; l2_replay's "prepare" and "timeline").
// 10: self-routing workers that read a saved routing plan (Start.self_routing.plan_path and
// plan_key; the DONE result's self_route "from_plan").
// 11: DONE's samples as whole-ns LEB128 deltas (the result's stats.*.samples_ns_leb128).
inline constexpr int kProtocolVersion = 11;
inline constexpr size_t kMaxMessageBytes = 256u << 20;  // DONE carries every latency sample
// What a START may ask of a worker, whoever sends it (worker/service/start_limits.h): the
// coordinator's own flags stay within these.
inline constexpr int kMaxNodes = 65536;             // node_count (the coordinator's socket bound)
inline constexpr int kMaxCreditWindow = 1024;       // --credit-window
inline constexpr size_t kMaxL2TraceFiles = 1024;    // L2 trace files of one run
inline constexpr double kMaxDrainTimeoutS = 86400;  // --drain-timeout
inline constexpr size_t kMaxBatchRawBytes = 64u << 20;
// What a worker accepts in one message (ZMQ_MAXMSGSIZE): a whole batch and its envelope. A peer
// announcing more is disconnected by libzmq before anything is allocated for it.
inline constexpr size_t kMaxToWorkerBytes = kMaxBatchRawBytes + (1u << 20);
// A CURVE (or plaintext) handshake that takes longer is dropped (ZMQ_HANDSHAKE_IVL).
inline constexpr int kHandshakeTimeoutMs = 5000;

class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Every message type, decoded once from the `t` field so that both sides dispatch on an enum.
enum class MessageType : uint8_t {
  Unknown,  // a `t` this build does not know: logged and ignored by the receiver
  Hello,
  Welcome,
  Ping,
  Pong,
  Start,
  Batch,
  End,
  Credit,
  Progress,
  Done,
  DoneAck,
  Heartbeat,
  Abort,
  Ready,
  Go,
};
MessageType message_type_from_name(std::string_view t);
std::string_view message_type_name(MessageType type);

// Why a worker stopped its run (Abort.kind on the wire): the coordinator exits 2 for these,
// not 3. None: a coordinator's ABORT, or a worker's without a kind.
enum class AbortKind : uint8_t {
  None,
  Config,    // "config": the engine cannot be built from the run's config
  Trace,     // "trace": its copy of the trace cannot serve the record references
  Protocol,  // "protocol": a batch arrived damaged, out of order or missing
  Policy,    // "policy": the run asks for what the worker's operator does not allow
};
AbortKind abort_kind_from_name(std::string_view kind);  // None for "" and unknown kinds
std::string_view abort_kind_name(
    AbortKind kind);  // "" for None  // the `t` on the wire; "?" for Unknown

// coordinator -> worker: opens a run.
struct Hello {
  int v = kProtocolVersion;
  std::string t = "hello";
  std::string build_id;
  std::string run_id;
  // Set when the coordinator offers to send records by reference: where the worker finds the
  // trace and the identity (trace/shared_trace.h) its copy must have. Empty: records travel.
  std::string trace_path;
  uint64_t trace_size = 0;
  std::string trace_fingerprint;
  MSGPACK_DEFINE_MAP(v, t, build_id, run_id, trace_path, trace_size, trace_fingerprint);
};

// worker -> coordinator: accepts (or, with `reject` set, refuses) the run.
struct Welcome {
  int v = kProtocolVersion;
  std::string t = "welcome";
  std::string build_id;
  std::string hostname;
  int cores = 0;
  std::string engine_digest;  // of the worker's default engine config
  std::string reject;         // non-empty: refused, with the reason
  bool trace_shared = false;  // mapped Hello.trace_path and it matches: send references
  std::string trace_error;    // why not, when Hello offered it
  MSGPACK_DEFINE_MAP(v, t, build_id, hostname, cores, engine_digest, reject, trace_shared,
                     trace_error);
};

// Clock-offset estimation (NTP style): the worker stamps its clock between the two
// coordinator stamps.
struct Ping {
  int v = kProtocolVersion;
  std::string t = "ping";
  int64_t seq = 0;
  int64_t coord_ns = 0;
  MSGPACK_DEFINE_MAP(v, t, seq, coord_ns);
};
struct Pong {
  int v = kProtocolVersion;
  std::string t = "pong";
  int64_t seq = 0;
  int64_t coord_ns = 0;
  int64_t worker_ns = 0;
  MSGPACK_DEFINE_MAP(v, t, seq, coord_ns, worker_ns);
};

// START's plan parameters when the worker routes itself (docs/sharding.md, "Workers that route
// themselves"): it reads the trace it mapped at HELLO and replays exactly the records the
// coordinator's router would have sent it. Names as --shard and --timeline spell them.
struct SelfRouting {
  bool on = false;  // false: the coordinator routes and sends batches
  std::string shard = "none";
  std::string timeline = "preserve";
  double window_s = 10.0;
  double lifecycle_ttl_s = 300.0;
  // Key sharding hashes the worker names (rendezvous): every name, in plan order. Empty for
  // none and time, which need only node_count (a START stays O(1) in the fleet's size).
  std::vector<std::string> worker_names;
  uint32_t max_frame_bytes = 0;  // the reader's frame limit (--max-frame-bytes)
  // Read ahead on a helper thread: not when --local workers already fill this host's cores.
  bool read_ahead = true;
  // A saved routing plan (--route-cache, plan/route_cache.h) the worker reads its share from
  // instead of routing the trace: its path (checked by the worker's --trace-root) and the key
  // the coordinator found it by (the plan must hold exactly this key). "" = route the trace.
  std::string plan_path;
  std::string plan_key;
  MSGPACK_DEFINE_MAP(on, shard, timeline, window_s, lifecycle_ttl_s, worker_names, max_frame_bytes,
                     read_ahead, plan_path, plan_key);
};

// START's L2 block (docs/l2-traces.md, "Across the fleet"): the run replays L2 adapter-level
// traces. The worker reads the files itself (within its --trace-root), builds each one's plan,
// aligns them on one timeline (time = t_mono + shift_s of its file) and replays the share
// `shard` gives node `node_index` against the one L2 adapter of the run's config.
struct L2Run {
  bool on = false;
  std::vector<std::string> trace_paths;   // as the workers see them, one per recorded server
  std::vector<double> shift_s;            // per file: added to its t_mono (t_wall alignment)
  std::string shard = "none";             // none | source | key
  std::vector<std::string> worker_names;  // key: every name in plan order (rendezvous)
  double trace_percent = 100.0;
  double drain_timeout_s = 60.0;
  uint32_t max_frame_bytes = 64u << 20;
  // --prepare-l2: seed this node's prepared objects after START, before READY (so T0 waits for
  // it); --prepare-only: seed them and send DONE without replaying (docs/l2-traces.md).
  bool prepare = false;
  bool prepare_only = false;
  MSGPACK_DEFINE_MAP(on, trace_paths, shift_s, shard, worker_names, trace_percent, drain_timeout_s,
                     max_frame_bytes, prepare, prepare_only);
};

// coordinator -> worker: the run's parameters. The worker builds its engine, queues batches
// as they come, answers READY and waits for GO, which names T0.
struct Start {
  int v = kProtocolVersion;
  std::string t = "start";
  double speed = 1.0;
  double t_origin = 0.0;           // trace time mapped to T0
  std::string clock = "real";      // real | virtual
  std::string engine_config_json;  // "" = the worker's own defaults
  std::string engine_name;         // "" = the worker's default
  int node_index = 0;
  int node_count = 1;
  std::string trace_level = "storage";
  int64_t trace_schema = 2;
  int credit_window = 8;  // batches the coordinator may have in flight
  // Fleet-only: the run's --l2-key-namespace (EngineConfig), not part of the config digest.
  std::string l2_key_namespace;
  std::string pacing = "uniform";    // uniform | causal (causal/pacing.h)
  std::string schedule = "ordered";  // causal: ordered | partial
  double causal_horizon_s = 0.050;   // causal: edges keep their gaps up to this long
  SelfRouting self_routing;          // on: no batches follow; the worker reads its share
  L2Run l2;                          // on: an L2 replay (no batches; the worker reads the files)
  bool classify_misses = false;      // label every miss; DONE carries them (causal-pacing.md)
  MSGPACK_DEFINE_MAP(v, t, speed, t_origin, clock, engine_config_json, engine_name, node_index,
                     node_count, trace_level, trace_schema, credit_window, l2_key_namespace, pacing,
                     schedule, causal_horizon_s, self_routing, l2, classify_misses);
};

// worker -> coordinator: the engine is built (the replay thread now waits for GO). The
// coordinator picks T0 once every worker is READY and the first batches are queued.
struct Ready {
  int v = kProtocolVersion;
  std::string t = "ready";
  int64_t engine_build_ns = 0;  // START received -> engine built, on the worker's clock
  MSGPACK_DEFINE_MAP(v, t, engine_build_ns);
};

// How far ahead of the worker's clock a GO may put T0: --start-delay's limit (3600 s) and a
// minute for the handshake. A later T0 would park the worker's run for longer than any run
// asks for; the worker refuses it (abort{protocol}) instead of waiting.
inline constexpr int64_t kMaxGoLeadNs = 3'660'000'000'000;

// coordinator -> worker: the run's start instant on the WORKER's clock.
struct Go {
  int v = kProtocolVersion;
  std::string t = "go";
  int64_t t0_worker_ns = 0;
  MSGPACK_DEFINE_MAP(v, t, t0_worker_ns);
};

// coordinator -> worker: record frames (length-prefixed, as in the file), zstd-compressed or
// as they are.
struct Batch {
  int v = kProtocolVersion;
  std::string t = "batch";
  int64_t seq = 0;  // 0, 1, 2, ... per worker
  int64_t records = 0;
  int64_t raw_bytes = 0;
  double t_shift = 0.0;         // subtracted from every record's t_mono (stacked timelines)
  std::string codec = "zstd";   // "zstd" | "none" (batch.h)
  msgpack::type::raw_ref data;  // the frames in `codec`; a view into the message buffer
  MSGPACK_DEFINE_MAP(v, t, seq, records, raw_bytes, t_shift, codec, data);
};

// coordinator -> worker: no more batches after `batches` in total.
struct End {
  int v = kProtocolVersion;
  std::string t = "end";
  int64_t batches = 0;
  int64_t records = 0;
  MSGPACK_DEFINE_MAP(v, t, batches, records);
};

// worker -> coordinator: `batches` more batches consumed; flow control.
struct Credit {
  int v = kProtocolVersion;
  std::string t = "credit";
  int64_t batches = 0;
  MSGPACK_DEFINE_MAP(v, t, batches);
};

// worker -> coordinator: live numbers, sent with every heartbeat during a run.
struct Progress {
  int v = kProtocolVersion;
  std::string t = "progress";
  int64_t records = 0;
  int64_t failed = 0;
  int64_t last_lateness_ns = 0;
  double trace_time_s = 0.0;
  // The run windows finished since the last PROGRESS (fleet_timeseries.csv), oldest first; the
  // last PROGRESS before DONE carries the final one.
  std::vector<stats::RunWindow> windows;
  // A worker that routes itself: the share of the trace file its scan has read (the progress
  // line's fraction, which the coordinator no longer knows); -1 otherwise. Absent from older
  // workers' messages: -1.
  double read_fraction = -1.0;
  MSGPACK_DEFINE_MAP(v, t, records, failed, last_lateness_ns, trace_time_s, windows, read_fraction);
};

// worker -> coordinator: the node's full result (NodeResult as msgpack, see node_result.h).
struct Done {
  int v = kProtocolVersion;
  std::string t = "done";
  msgpack::type::raw_ref result;
  MSGPACK_DEFINE_MAP(v, t, result);
};

// coordinator -> worker: the DONE arrived and was decoded. A --max-runs worker waits for it
// before exiting: closing the connection earlier can reset it while the DONE is still in
// flight (TCP resets when unread data remains), and the coordinator would never see the result.
struct DoneAck {
  int v = kProtocolVersion;
  std::string t = "done_ack";
  MSGPACK_DEFINE_MAP(v, t);
};

struct Heartbeat {
  int v = kProtocolVersion;
  std::string t = "heartbeat";
  MSGPACK_DEFINE_MAP(v, t);
};

// Either side: stop the run now. A worker answers with a partial DONE.
struct Abort {
  int v = kProtocolVersion;
  std::string t = "abort";
  std::string reason;
  // Why a worker stops its run (the coordinator exits 2, not 3 for a failed run): "config",
  // it cannot build its engine from the run's config; "trace", its copy of the trace cannot
  // serve the record references; "protocol", a batch arrived damaged, out of order or missing.
  // Empty for a coordinator's ABORT.
  std::string kind;
  MSGPACK_DEFINE_MAP(v, t, reason, kind);
};

template <class T>
std::string encode(const T& msg) {
  msgpack::sbuffer buf;
  msgpack::pack(buf, msg);
  return std::string(buf.data(), buf.size());
}

// A decoded message: its type and a handle that owns the parsed object (raw_ref fields of a
// body point into the original buffer, which must outlive them).
struct Envelope {
  int version = 0;
  MessageType kind = MessageType::Unknown;
  std::string type;  // `t` as received (names an Unknown kind in logs)
  msgpack::object_handle handle;

  template <class T>
  T as() const {
    T out;
    try {
      handle.get().convert(out);
    } catch (const std::exception& e) {
      throw ProtocolError("malformed \"" + type + "\" message: " + e.what());
    }
    return out;
  }
};

// Throws ProtocolError: oversized, not a map, no "v"/"t", over the nesting/count limits.
// The envelope's bin fields (raw_ref) are views into `data`: keep it alive while using them.
// A version other than kProtocolVersion is returned as is: the caller refuses it by name.
Envelope decode(const void* data, size_t size);

}  // namespace fleet::wire
