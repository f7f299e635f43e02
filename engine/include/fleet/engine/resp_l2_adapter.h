// LMCache's `resp` L2 adapter (docs/era3-reference.md §6.4): Redis/Valkey over hiredis with
// LMCache's key naming, one connection per worker (num_workers), pipelined SET / EXISTS / GET /
// DEL, optional AUTH, client-side lookup lock counts and byte accounting.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "fleet/engine/io_worker_pool.h"
#include "fleet/engine/l2_adapter.h"
#include "fleet/util/status.h"

struct redisContext;

namespace fleet::storage {

inline constexpr int kMaxRespConnections = 256;  // num_workers: connections (and threads)

struct RespL2Config {
  std::string host;
  int port = 0;
  int num_workers = 8;
  std::string username;
  std::string password;
  double max_capacity_gb = 0;
  // Applies LMCACHE_RESP_HOST/PORT/USERNAME/PASSWORD; or which field is wrong.
  static Result<RespL2Config> from_json(const nlohmann::json& j);
};

// `<model_name>@<kv_rank %08x>@<group hex>@<chunk_hash hex>[@<cache_salt>]`; with a key
// namespace (L2AdapterContext) the adapter stores it as `<namespace>:<that>`.
std::string resp_key_name(const trace::ObjectKey& key);

class RespL2Adapter final : public L2Adapter {
 public:
  // Connects once to check the credentials: refused, naming the endpoint, when Redis refuses
  // them (a wrong password, or none given to a Redis that requires one). An unreachable Redis
  // is not an error here (its calls fail and are counted).
  static Result<std::unique_ptr<RespL2Adapter>> open(const RespL2Config& cfg);
  ~RespL2Adapter() override;
  std::string_view type() const override { return "resp"; }
  void attach(L2AdapterContext ctx) override;
  std::string key_name(const trace::ObjectKey& key) const;

  uint64_t submit_store(std::vector<trace::ObjectKey> keys, std::vector<uint64_t> sizes) override;
  uint64_t submit_lookup_and_lock(std::vector<trace::ObjectKey> keys) override;
  uint64_t submit_load(std::vector<trace::ObjectKey> keys, std::vector<uint64_t> sizes) override;
  void submit_unlock(std::vector<trace::ObjectKey> keys) override;
  std::vector<trace::ObjectKey> delete_keys(const std::vector<trace::ObjectKey>& keys) override;
  L2Usage usage() const override;
  void close() override;

  uint64_t connection_errors() const;
  int64_t lock_count(const trace::ObjectKey& key) const;

 private:
  struct Conn;
  explicit RespL2Adapter(const RespL2Config& cfg);
  std::string endpoint() const;  // host:port, [v6]:port
  Conn& conn(size_t worker);
  // "" once `c` is connected (reconnecting when needed), else why it is not.
  std::string connect(Conn& c);
  void drop(Conn& c);
  // Why `c` failed (hiredis's errstr), after drop(c).
  std::string drop_lost(Conn& c);
  void run(std::function<void(size_t)> fn);
  uint64_t next_id();
  void run_split(L2OpKind kind, uint64_t id, std::vector<trace::ObjectKey> keys,
                 std::vector<uint64_t> sizes);
  // Work on keys[begin, end) on one connection; false on a connection or protocol failure, with
  // the reason in out.error.
  bool do_store(Conn& c, const std::vector<trace::ObjectKey>& keys,
                const std::vector<uint64_t>& sizes, size_t begin, size_t end, L2Completion& out);
  bool do_lookup(Conn& c, const std::vector<trace::ObjectKey>& keys, size_t begin, size_t end,
                 L2Completion& out);
  bool do_load(Conn& c, const std::vector<trace::ObjectKey>& keys,
               const std::vector<uint64_t>& sizes, size_t begin, size_t end, L2Completion& out);

  RespL2Config cfg_;
  uint64_t capacity_;
  std::vector<std::unique_ptr<Conn>> conns_;
  std::unique_ptr<IoWorkerPool> pool_;
  mutable std::mutex mu_;
  uint64_t next_task_ = 0;
  uint64_t used_ = 0;
  uint64_t conn_errors_ = 0;
  std::atomic<bool> closing_{false};  // close(): running tasks stop at their next window
  std::unordered_map<std::string, int64_t> locks_;
  std::unordered_map<std::string, uint64_t> sizes_;  // bounded adapters only: bytes per key
};

}  // namespace fleet::storage
