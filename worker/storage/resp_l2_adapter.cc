#include "fleet/storage/resp_l2_adapter.h"

#include <hiredis/hiredis.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "fleet/storage/payload.h"

namespace fleet::storage {

namespace {
std::string hex(std::string_view bytes) {
  static const char* d = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(d[c >> 4]);
    out.push_back(d[c & 15]);
  }
  return out;
}

struct ReplyDeleter {
  void operator()(redisReply* r) const {
    if (r) freeReplyObject(r);
  }
};
using Reply = std::unique_ptr<redisReply, ReplyDeleter>;

Reply get_reply(redisContext* c) {
  void* r = nullptr;
  if (redisGetReply(c, &r) != REDIS_OK) return nullptr;
  return Reply(static_cast<redisReply*>(r));
}
}  // namespace

struct RespL2Adapter::Conn {
  redisContext* ctx = nullptr;
  ~Conn() {
    if (ctx) redisFree(ctx);
  }
};

RespL2Config RespL2Config::from_json(const nlohmann::json& j) {
  RespL2Config c;
  if (!j.contains("host") || !j["host"].is_string())
    throw std::invalid_argument("resp adapter: 'host' (string) is required");
  if (!j.contains("port") || !j["port"].is_number_integer())
    throw std::invalid_argument("resp adapter: 'port' (integer) is required");
  c.host = j["host"].get<std::string>();
  c.port = j["port"].get<int>();
  if (j.contains("num_workers")) {
    if (!j["num_workers"].is_number_integer() || j["num_workers"].get<int>() < 1)
      throw std::invalid_argument("resp adapter: 'num_workers' must be an integer >= 1");
    c.num_workers = j["num_workers"].get<int>();
  }
  if (j.contains("username")) c.username = j["username"].get<std::string>();
  if (j.contains("password")) c.password = j["password"].get<std::string>();
  if (j.contains("max_capacity_gb")) {
    if (!j["max_capacity_gb"].is_number() || j["max_capacity_gb"].get<double>() < 0)
      throw std::invalid_argument("resp adapter: 'max_capacity_gb' must be a number >= 0");
    c.max_capacity_gb = j["max_capacity_gb"].get<double>();
  }
  if (const char* e = std::getenv("LMCACHE_RESP_HOST")) c.host = e;
  if (const char* e = std::getenv("LMCACHE_RESP_PORT")) c.port = std::atoi(e);
  if (const char* e = std::getenv("LMCACHE_RESP_USERNAME")) c.username = e;
  if (const char* e = std::getenv("LMCACHE_RESP_PASSWORD")) c.password = e;
  if (c.port <= 0 || c.port > 65535) throw std::invalid_argument("resp adapter: bad 'port'");
  return c;
}

std::string resp_key_name(const trace::ObjectKey& k) {
  char rank[32];
  std::snprintf(rank, sizeof(rank), "%08llx",
                static_cast<unsigned long long>(static_cast<uint64_t>(k.kv_rank)));
  char group[32];
  std::snprintf(group, sizeof(group), "%llx",
                static_cast<unsigned long long>(static_cast<uint64_t>(k.object_group_id)));
  std::string s = k.model_name + "@" + rank + "@" + group + "@" + hex(k.chunk_hash);
  if (!k.cache_salt.empty()) s += "@" + k.cache_salt;
  return s;
}

RespL2Adapter::RespL2Adapter(const RespL2Config& cfg)
    : cfg_(cfg), capacity_(static_cast<uint64_t>(cfg.max_capacity_gb * 1073741824.0)) {
  for (int i = 0; i < cfg_.num_workers; ++i) conns_.push_back(std::make_unique<Conn>());
}

RespL2Adapter::~RespL2Adapter() { close(); }

void RespL2Adapter::attach(L2AdapterContext ctx) {
  ctx_ = std::move(ctx);
  if (!ctx_.synchronous) pool_ = std::make_unique<IoWorkerPool>(conns_.size());
}

void RespL2Adapter::close() {
  if (pool_) pool_->shutdown();
}

RespL2Adapter::Conn& RespL2Adapter::conn(size_t worker) { return *conns_[worker % conns_.size()]; }

void RespL2Adapter::drop(Conn& c) {
  if (c.ctx) redisFree(c.ctx);
  c.ctx = nullptr;
  std::lock_guard<std::mutex> g(mu_);
  conn_errors_++;
}

bool RespL2Adapter::ensure_connected(Conn& c) {
  if (c.ctx && c.ctx->err == 0) return true;
  if (c.ctx) drop(c);
  timeval tv{5, 0};
  c.ctx = redisConnectWithTimeout(cfg_.host.c_str(), cfg_.port, tv);
  if (!c.ctx || c.ctx->err) {
    drop(c);
    return false;
  }
  redisSetTimeout(c.ctx, tv);
  if (!cfg_.password.empty()) {
    Reply r(static_cast<redisReply*>(
        cfg_.username.empty()
            ? redisCommand(c.ctx, "AUTH %b", cfg_.password.data(), cfg_.password.size())
            : redisCommand(c.ctx, "AUTH %b %b", cfg_.username.data(), cfg_.username.size(),
                           cfg_.password.data(), cfg_.password.size())));
    if (!r || r->type == REDIS_REPLY_ERROR) {
      drop(c);
      return false;
    }
  }
  return true;
}

void RespL2Adapter::run(std::function<void(size_t)> fn) {
  if (pool_) {
    pool_->submit(std::move(fn));
  } else {
    fn(0);
  }
}

uint64_t RespL2Adapter::next_id() {
  std::lock_guard<std::mutex> g(mu_);
  return next_task_++;
}

L2Completion RespL2Adapter::do_store(Conn& c, const std::vector<trace::ObjectKey>& keys,
                                     const std::vector<uint64_t>& sizes) {
  L2Completion out;
  out.kind = L2OpKind::Store;
  out.num_keys = keys.size();
  if (!ensure_connected(c)) {
    out.success = false;
    return out;
  }
  uint64_t max_size = 0;
  for (auto s : sizes) max_size = std::max(max_size, s);
  auto payload = zero_payload(max_size);
  for (size_t i = 0; i < keys.size(); ++i) {
    std::string k = resp_key_name(keys[i]);
    redisAppendCommand(c.ctx, "SET %b %b", k.data(), k.size(), payload.get(),
                       static_cast<size_t>(sizes[i]));
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    Reply r = get_reply(c.ctx);
    if (!r) {
      drop(c);
      out.success = false;
      return out;
    }
    if (r->type == REDIS_REPLY_STATUS && std::string_view(r->str, r->len) == "OK") {
      out.bytes += sizes[i];
    } else {
      out.success = false;
    }
  }
  std::lock_guard<std::mutex> g(mu_);
  used_ += out.bytes;
  return out;
}

L2Completion RespL2Adapter::do_lookup(Conn& c, const std::vector<trace::ObjectKey>& keys) {
  L2Completion out;
  out.kind = L2OpKind::Lookup;
  out.num_keys = keys.size();
  out.bitmap.assign(keys.size(), 0);
  if (!ensure_connected(c)) return out;
  std::vector<std::string> names;
  for (const auto& key : keys) {
    names.push_back(resp_key_name(key));
    redisAppendCommand(c.ctx, "EXISTS %b", names.back().data(), names.back().size());
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    Reply r = get_reply(c.ctx);
    if (!r) {
      drop(c);
      std::fill(out.bitmap.begin(), out.bitmap.end(), 0);
      return out;
    }
    out.bitmap[i] = r->type == REDIS_REPLY_INTEGER && r->integer == 1;
  }
  std::lock_guard<std::mutex> g(mu_);
  for (size_t i = 0; i < keys.size(); ++i)
    if (out.bitmap[i]) locks_[names[i]]++;
  return out;
}

L2Completion RespL2Adapter::do_load(Conn& c, const std::vector<trace::ObjectKey>& keys,
                                    const std::vector<uint64_t>& sizes) {
  L2Completion out;
  out.kind = L2OpKind::Load;
  out.num_keys = keys.size();
  out.bitmap.assign(keys.size(), 0);
  if (!ensure_connected(c)) return out;
  for (const auto& key : keys) {
    std::string k = resp_key_name(key);
    redisAppendCommand(c.ctx, "GET %b", k.data(), k.size());
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    Reply r = get_reply(c.ctx);
    if (!r) {
      drop(c);
      std::fill(out.bitmap.begin(), out.bitmap.end(), 0);
      out.bytes = 0;
      return out;
    }
    if (r->type == REDIS_REPLY_STRING && static_cast<uint64_t>(r->len) == sizes[i]) {
      out.bitmap[i] = 1;  // the bulk length must equal the destination buffer
      out.bytes += sizes[i];
    }
  }
  return out;
}

uint64_t RespL2Adapter::submit_store(std::vector<trace::ObjectKey> keys,
                                     std::vector<uint64_t> sizes) {
  const uint64_t id = next_id();
  const int64_t t0 = ctx_.clock->now_ns();
  run([this, id, t0, keys = std::move(keys), sizes = std::move(sizes)](size_t w) {
    L2Completion c = do_store(conn(w), keys, sizes);
    c.task_id = id;
    c.submit_ns = t0;
    c.end_ns = std::max(t0, ctx_.clock->now_ns());
    ctx_.deliver(c.end_ns, std::move(c));
  });
  return id;
}

uint64_t RespL2Adapter::submit_lookup_and_lock(std::vector<trace::ObjectKey> keys) {
  const uint64_t id = next_id();
  const int64_t t0 = ctx_.clock->now_ns();
  run([this, id, t0, keys = std::move(keys)](size_t w) {
    L2Completion c = do_lookup(conn(w), keys);
    c.task_id = id;
    c.submit_ns = t0;
    c.end_ns = std::max(t0, ctx_.clock->now_ns());
    ctx_.deliver(c.end_ns, std::move(c));
  });
  return id;
}

uint64_t RespL2Adapter::submit_load(std::vector<trace::ObjectKey> keys,
                                    std::vector<uint64_t> sizes) {
  const uint64_t id = next_id();
  const int64_t t0 = ctx_.clock->now_ns();
  run([this, id, t0, keys = std::move(keys), sizes = std::move(sizes)](size_t w) {
    L2Completion c = do_load(conn(w), keys, sizes);
    c.task_id = id;
    c.submit_ns = t0;
    c.end_ns = std::max(t0, ctx_.clock->now_ns());
    ctx_.deliver(c.end_ns, std::move(c));
  });
  return id;
}

void RespL2Adapter::submit_unlock(std::vector<trace::ObjectKey> keys) {
  std::lock_guard<std::mutex> g(mu_);
  for (const auto& k : keys) {
    auto it = locks_.find(resp_key_name(k));
    if (it != locks_.end() && --it->second <= 0) locks_.erase(it);
  }
}

void RespL2Adapter::delete_keys(const std::vector<trace::ObjectKey>& keys) {
  run([this, keys](size_t w) {
    Conn& c = conn(w);
    if (!ensure_connected(c)) return;
    for (const auto& key : keys) {
      std::string k = resp_key_name(key);
      redisAppendCommand(c.ctx, "DEL %b", k.data(), k.size());
    }
    for (size_t i = 0; i < keys.size(); ++i)
      if (!get_reply(c.ctx)) {
        drop(c);
        return;
      }
  });
}

L2Usage RespL2Adapter::usage() const {
  std::lock_guard<std::mutex> g(mu_);
  return {used_, capacity_};
}

uint64_t RespL2Adapter::connection_errors() const {
  std::lock_guard<std::mutex> g(mu_);
  return conn_errors_;
}

int64_t RespL2Adapter::lock_count(const trace::ObjectKey& key) const {
  std::lock_guard<std::mutex> g(mu_);
  auto it = locks_.find(resp_key_name(key));
  return it == locks_.end() ? 0 : it->second;
}

}  // namespace fleet::storage
