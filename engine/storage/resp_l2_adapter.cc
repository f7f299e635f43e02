#include "fleet/engine/resp_l2_adapter.h"

#include <hiredis/hiredis.h>
#include <sys/socket.h>

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "fleet/engine/json_options.h"
#include "fleet/engine/payload.h"
#include "fleet/trace/msgpack_value.h"

namespace fleet::storage {

namespace {
// Lowercase hex of raw bytes: the trace library's helper.
std::string hex(std::string_view bytes) { return trace::to_hex(bytes); }

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

struct ContextDeleter {
  void operator()(redisContext* c) const {
    if (c) redisFree(c);
  }
};

// AUTH [username] password, or null when the connection failed.
Reply send_auth(redisContext* c, const RespL2Config& cfg) {
  return Reply(static_cast<redisReply*>(
      cfg.username.empty() ? redisCommand(c, "AUTH %b", cfg.password.data(), cfg.password.size())
                           : redisCommand(c, "AUTH %b %b", cfg.username.data(), cfg.username.size(),
                                          cfg.password.data(), cfg.password.size())));
}

// Redis's answer for missing or wrong credentials (NOAUTH; WRONGPASS since Redis 6, "invalid
// password" before): retrying cannot help, unlike a refused or dropped connection.
bool is_auth_error(std::string_view e) {
  return e.starts_with("NOAUTH") || e.starts_with("WRONGPASS") ||
         e.find("invalid password") != std::string_view::npos ||
         e.find("invalid username-password pair") != std::string_view::npos;
}

// An error reply as text, with the password blanked should a server ever echo it.
std::string error_text(const redisReply& r, const std::string& password) {
  std::string e(r.str ? r.str : "", r.str ? r.len : 0);
  for (size_t at; !password.empty() && (at = e.find(password)) != std::string::npos;)
    e.replace(at, password.size(), "***");
  return e;
}
// A reply that is not the one expected, as text: Redis's error (OOM, READONLY, ...), or its type.
std::string reply_error(const redisReply& r, const std::string& password) {
  if (r.type == REDIS_REPLY_ERROR) return error_text(r, password);
  return "unexpected reply of type " + std::to_string(r.type);
}
}  // namespace

struct RespL2Adapter::Conn {
  redisContext* ctx = nullptr;
  // Held only while `ctx` is replaced (connect, drop), never across a command: close() takes it
  // to cut the socket of a command in progress without racing a reconnect.
  std::mutex swap;
  ~Conn() {
    if (ctx) redisFree(ctx);
  }
};

Result<RespL2Config> RespL2Config::from_json(const nlohmann::json& j) {
  JsonOptions o(j, "resp adapter");
  RespL2Config c;
  c.host = o.required_string("host");
  const int64_t port = o.required_int("port");
  if (port <= 0 || port > 65535) o.fail("port", "must be in [1, 65535]");
  c.port = static_cast<int>(port);
  o.optional_int("num_workers", c.num_workers, 1);
  // One connection and one thread each: a bound, so a config cannot exhaust the host's threads.
  if (c.num_workers > kMaxRespConnections) {
    o.fail("num_workers", "must be at most " + std::to_string(kMaxRespConnections) + ", got " +
                              std::to_string(c.num_workers));
  }
  o.optional_string("username", c.username);
  o.optional_string("password", c.password);
  o.optional_number("max_capacity_gb", c.max_capacity_gb, 0);
  if (const char* e = std::getenv("LMCACHE_RESP_HOST")) c.host = e;
  if (const char* e = std::getenv("LMCACHE_RESP_PORT")) c.port = std::atoi(e);
  if (const char* e = std::getenv("LMCACHE_RESP_USERNAME")) c.username = e;
  if (const char* e = std::getenv("LMCACHE_RESP_PASSWORD")) c.password = e;
  if (c.port <= 0 || c.port > 65535)
    o.fail("port", "(or LMCACHE_RESP_PORT) must be in [1, 65535], got " + std::to_string(c.port));
  if (!o.ok()) return o.status();
  return c;
}

std::string resp_key_name(const trace::ObjectKey& k) {
  char rank[32];
  std::snprintf(rank, sizeof(rank), "%08llx",
                static_cast<unsigned long long>(static_cast<uint64_t>(k.kv_rank)));
  char group[32];
  std::snprintf(group, sizeof(group), "%llx",
                static_cast<unsigned long long>(static_cast<uint64_t>(k.object_group_id)));
  std::string s = k.model_name.str() + "@" + rank + "@" + group + "@" + hex(k.chunk_hash);
  if (!k.cache_salt.empty()) s += "@" + k.cache_salt;
  return s;
}

namespace {
// host:port, [v6]:port
std::string endpoint_of(const RespL2Config& cfg) {
  const bool v6 = cfg.host.find(':') != std::string::npos;
  return (v6 ? "[" + cfg.host + "]" : cfg.host) + ":" + std::to_string(cfg.port);
}

// Once, before any replay: an engine whose every L2 call Redis would refuse for its credentials
// is a config error, said at once instead of counted as failed tasks. A Redis that is down or
// drops the connection is not: the run goes on and counts it, as it does when Redis dies
// mid-run. The probe's connection is closed; the workers connect on first use as before.
Status check_credentials(const RespL2Config& cfg) {
  timeval tv{5, 0};
  std::unique_ptr<redisContext, ContextDeleter> c(
      redisConnectWithTimeout(cfg.host.c_str(), cfg.port, tv));
  if (!c || c->err) return Status();
  redisSetTimeout(c.get(), tv);
  const std::string where = "resp adapter " + endpoint_of(cfg);
  if (!cfg.password.empty()) {
    Reply r = send_auth(c.get(), cfg);
    if (!r) return Status();
    if (r->type == REDIS_REPLY_ERROR)  // any refused AUTH: wrong password, none configured
      return Status::error(where +
                           ": Redis refused authentication: " + error_text(*r, cfg.password));
  }
  Reply r(static_cast<redisReply*>(redisCommand(c.get(), "PING")));
  if (!r || r->type != REDIS_REPLY_ERROR) return Status();
  const std::string e = error_text(*r, cfg.password);
  if (!is_auth_error(e)) return Status();  // e.g. LOADING, or an ACL user without PING: not ours
  if (e.starts_with("NOAUTH"))
    return Status::error(where +
                         ": Redis requires a password (NOAUTH); give the worker "
                         "--l2-secret-file (or set LMCACHE_RESP_PASSWORD)");
  return Status::error(where + ": Redis refused authentication: " + e);
}
}  // namespace

Result<std::unique_ptr<RespL2Adapter>> RespL2Adapter::open(const RespL2Config& cfg) {
  if (Status s = check_credentials(cfg); !s) return s;
  return std::unique_ptr<RespL2Adapter>(new RespL2Adapter(cfg));
}

RespL2Adapter::RespL2Adapter(const RespL2Config& cfg)
    : cfg_(cfg), capacity_(static_cast<uint64_t>(cfg.max_capacity_gb * 1073741824.0)) {
  for (int i = 0; i < cfg_.num_workers; ++i) conns_.push_back(std::make_unique<Conn>());
}

std::string RespL2Adapter::endpoint() const { return endpoint_of(cfg_); }

RespL2Adapter::~RespL2Adapter() { close(); }

std::string RespL2Adapter::key_name(const trace::ObjectKey& k) const {
  return ctx_.key_namespace.empty() ? resp_key_name(k)
                                    : ctx_.key_namespace + ":" + resp_key_name(k);
}

void RespL2Adapter::attach(L2AdapterContext ctx) {
  ctx_ = std::move(ctx);
  if (!ctx_.synchronous) pool_ = std::make_unique<IoWorkerPool>(conns_.size());
}

// Queued commands are dropped, and a command in progress is cut off by shutting its socket down
// (Redis discards a command whose connection closes before it is whole): the engine has closed
// and abandoned its requests, and load on a shared Redis after a run stopped (its coordinator
// killed) is load nobody asked for (the fault tests' orphan-load check). Letting a running task
// finish instead was seconds of load on a loaded host: one SET of LMCache's objects is tens of
// MB (the layout [2,32,256,8,128] bf16 is 32 MiB), one in flight per connection. A run that
// ends normally drains its stores first (StorageManager::close), so nothing of its is cut.
void RespL2Adapter::close() {
  closing_.store(true);
  if (pool_) pool_->cancel_queued();
  for (auto& c : conns_) {
    std::lock_guard<std::mutex> g(c->swap);
    if (c->ctx && c->ctx->fd >= 0) ::shutdown(c->ctx->fd, SHUT_RDWR);
  }
  if (pool_) pool_->shutdown();
}

RespL2Adapter::Conn& RespL2Adapter::conn(size_t worker) { return *conns_[worker % conns_.size()]; }

void RespL2Adapter::drop(Conn& c) {
  {
    std::lock_guard<std::mutex> g(c.swap);
    if (c.ctx) redisFree(c.ctx);
    c.ctx = nullptr;
  }
  std::lock_guard<std::mutex> g(mu_);
  conn_errors_++;
}

namespace {
constexpr const char* kClosing = "the adapter is closing (the run stopped)";
}  // namespace

std::string RespL2Adapter::connect(Conn& c) {
  if (c.ctx && c.ctx->err == 0) return "";
  if (c.ctx) drop(c);
  if (closing_.load(std::memory_order_relaxed)) return kClosing;  // no new load once closed
  timeval tv{5, 0};
  redisContext* fresh = redisConnectWithTimeout(cfg_.host.c_str(), cfg_.port, tv);
  {
    std::lock_guard<std::mutex> g(c.swap);
    c.ctx = fresh;
    // close() may have looked at this connection before it existed: cut it here instead.
    if (fresh && fresh->fd >= 0 && closing_.load()) ::shutdown(fresh->fd, SHUT_RDWR);
  }
  if (!c.ctx || c.ctx->err) return "connect " + endpoint() + ": " + drop_lost(c);
  redisSetTimeout(c.ctx, tv);
  if (!cfg_.password.empty()) {
    Reply r = send_auth(c.ctx, cfg_);
    if (!r) return "AUTH at " + endpoint() + ": " + drop_lost(c);
    if (r->type == REDIS_REPLY_ERROR) {
      drop(c);
      return "AUTH at " + endpoint() + ": " + error_text(*r, cfg_.password);
    }
  }
  return "";
}

std::string RespL2Adapter::drop_lost(Conn& c) {
  std::string why = !c.ctx ? "out of memory" : c.ctx->errstr[0] ? c.ctx->errstr : "no reply";
  drop(c);
  return why;
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

namespace {
// Commands are pipelined in windows of <= 64 commands and <= 512 KiB: hiredis grows its output
// buffer linearly past 1 MiB and memmoves what is left after every partial socket write, so a
// multi-MiB window costs quadratic copying (measured: 8 MiB windows gave 145 MB/s of SET).
constexpr size_t kWindowCmds = 64;
constexpr uint64_t kWindowBytes = 512ull << 10;

// End of the pipelined window that starts at `w`: at most kWindowCmds commands and, past the
// first, at most kWindowBytes of values.
size_t window_end(const std::vector<uint64_t>& sizes, size_t w, size_t end) {
  size_t we = w;
  uint64_t bytes = 0;
  while (we < end && we - w < kWindowCmds && (we == w || bytes + sizes[we] <= kWindowBytes))
    bytes += sizes[we++];
  return we;
}
}  // namespace

bool RespL2Adapter::do_store(Conn& c, const std::vector<trace::ObjectKey>& keys,
                             const std::vector<uint64_t>& sizes, size_t begin, size_t end,
                             L2Completion& out) {
  out.error = connect(c);
  if (!out.error.empty()) return false;
  uint64_t max_size = 0;
  for (size_t i = begin; i < end; ++i) max_size = std::max(max_size, sizes[i]);
  auto payload = zero_payload(max_size);
  bool ok = true;
  uint64_t stored = 0;
  for (size_t w = begin; w < end;) {
    if (closing_.load(std::memory_order_relaxed)) {
      out.error = kClosing;
      return false;
    }
    const size_t we = window_end(sizes, w, end);
    for (size_t i = w; i < we; ++i) {
      std::string k = key_name(keys[i]);
      redisAppendCommand(c.ctx, "SET %b %b", k.data(), k.size(), payload.get(),
                         static_cast<size_t>(sizes[i]));
    }
    for (size_t i = w; i < we; ++i) {
      Reply r = get_reply(c.ctx);
      if (!r) {
        out.error = "SET at " + endpoint() + ": connection lost: " + drop_lost(c);
        return false;
      }
      if (r->type == REDIS_REPLY_STATUS && std::string_view(r->str, r->len) == "OK") {
        stored += sizes[i];
        if (capacity_ > 0) {  // a bounded adapter counts each key once (SET overwrites)
          std::lock_guard<std::mutex> g(mu_);
          std::string k = key_name(keys[i]);
          auto [it, fresh] = sizes_.try_emplace(std::move(k), sizes[i]);
          if (!fresh) used_ -= std::min(used_, it->second);
          it->second = sizes[i];
          used_ += sizes[i];
        }
      } else {
        if (ok) out.error = "SET refused by " + endpoint() + ": " + reply_error(*r, cfg_.password);
        ok = false;
      }
    }
    w = we;
  }
  out.bytes += stored;
  if (capacity_ == 0) {  // unbounded: a gauge of bytes written
    std::lock_guard<std::mutex> g(mu_);
    used_ += stored;
  }
  return ok;
}

bool RespL2Adapter::do_lookup(Conn& c, const std::vector<trace::ObjectKey>& keys, size_t begin,
                              size_t end, L2Completion& out) {
  out.error = connect(c);
  if (!out.error.empty()) return false;
  std::vector<std::string> names;
  for (size_t w = begin; w < end;) {
    const size_t we = std::min(end, w + kWindowCmds * 4);
    for (size_t i = w; i < we; ++i) {
      std::string k = key_name(keys[i]);
      redisAppendCommand(c.ctx, "EXISTS %b", k.data(), k.size());
    }
    for (size_t i = w; i < we; ++i) {
      Reply r = get_reply(c.ctx);
      if (!r) {
        out.error = "EXISTS at " + endpoint() + ": connection lost: " + drop_lost(c);
        for (size_t j = begin; j < end; ++j) out.bitmap[j] = 0;
        return false;
      }
      out.bitmap[i] = r->type == REDIS_REPLY_INTEGER && r->integer == 1;
    }
    w = we;
  }
  std::lock_guard<std::mutex> g(mu_);
  for (size_t i = begin; i < end; ++i)
    if (out.bitmap[i]) locks_[key_name(keys[i])]++;
  return true;
}

bool RespL2Adapter::do_load(Conn& c, const std::vector<trace::ObjectKey>& keys,
                            const std::vector<uint64_t>& sizes, size_t begin, size_t end,
                            L2Completion& out) {
  out.error = connect(c);
  if (!out.error.empty()) return false;
  uint64_t loaded = 0;
  for (size_t w = begin; w < end;) {
    if (closing_.load(std::memory_order_relaxed)) {
      out.error = kClosing;
      return false;
    }
    const size_t we = window_end(sizes, w, end);
    for (size_t i = w; i < we; ++i) {
      std::string k = key_name(keys[i]);
      redisAppendCommand(c.ctx, "GET %b", k.data(), k.size());
    }
    for (size_t i = w; i < we; ++i) {
      Reply r = get_reply(c.ctx);
      if (!r) {
        out.error = "GET at " + endpoint() + ": connection lost: " + drop_lost(c);
        for (size_t j = begin; j < end; ++j) out.bitmap[j] = 0;
        return false;
      }
      if (r->type == REDIS_REPLY_STRING && static_cast<uint64_t>(r->len) == sizes[i]) {
        out.bitmap[i] = 1;  // the bulk length must equal the destination buffer
        loaded += sizes[i];
      }
    }
    w = we;
  }
  out.bytes += loaded;
  return true;
}

// One task is split over the connection pool (up to num_workers parts of >= kWindowCmds keys);
// the part that finishes last delivers the completion.
void RespL2Adapter::run_split(L2OpKind kind, uint64_t id, std::vector<trace::ObjectKey> keys,
                              std::vector<uint64_t> sizes) {
  struct Shared {
    std::mutex mu;
    size_t remaining = 0;
    L2Completion c;
    std::vector<trace::ObjectKey> keys;
    std::vector<uint64_t> sizes;
  };
  auto sh = std::make_shared<Shared>();
  const size_t n = keys.size();
  sh->c.kind = kind;
  sh->c.task_id = id;
  sh->c.num_keys = n;
  sh->c.submit_ns = ctx_.clock->now_ns();
  if (kind != L2OpKind::Store || ctx_.report_keys) sh->c.bitmap.assign(n, 0);
  sh->keys = std::move(keys);
  sh->sizes = std::move(sizes);
  size_t parts = 1;
  if (pool_)
    parts = std::max<size_t>(1, std::min(conns_.size(), (n + kWindowCmds - 1) / kWindowCmds));
  sh->remaining = parts;
  for (size_t p = 0; p < parts; ++p) {
    const size_t b = n * p / parts, e = n * (p + 1) / parts;
    run([this, sh, kind, b, e](size_t w) {
      L2Completion part;
      if (kind != L2OpKind::Store) part.bitmap.assign(sh->keys.size(), 0);
      bool ok = false;
      Conn& c = conn(w);
      if (kind == L2OpKind::Store)
        ok = do_store(c, sh->keys, sh->sizes, b, e, part);
      else if (kind == L2OpKind::Lookup)
        ok = do_lookup(c, sh->keys, b, e, part);
      else
        ok = do_load(c, sh->keys, sh->sizes, b, e, part);
      L2Completion done;
      {
        std::lock_guard<std::mutex> g(sh->mu);
        if (!ok && sh->c.success) sh->c.error = std::move(part.error);  // the first reason
        sh->c.success = sh->c.success && ok;
        sh->c.bytes += part.bytes;
        for (size_t i = b; i < e && !part.bitmap.empty(); ++i) sh->c.bitmap[i] = part.bitmap[i];
        if (kind == L2OpKind::Store && ctx_.report_keys && ok)
          for (size_t i = b; i < e; ++i) sh->c.bitmap[i] = 1;  // a part succeeds as a whole
        if (--sh->remaining > 0) return;
        done = std::move(sh->c);
        if (ctx_.report_keys && kind != L2OpKind::Lookup) done.keys = sh->keys;
      }
      done.end_ns = std::max(done.submit_ns, ctx_.clock->now_ns());
      ctx_.deliver(done.end_ns, std::move(done));
    });
  }
}

uint64_t RespL2Adapter::submit_store(std::vector<trace::ObjectKey> keys,
                                     std::vector<uint64_t> sizes) {
  const uint64_t id = next_id();
  run_split(L2OpKind::Store, id, std::move(keys), std::move(sizes));
  return id;
}

uint64_t RespL2Adapter::submit_lookup_and_lock(std::vector<trace::ObjectKey> keys) {
  const uint64_t id = next_id();
  run_split(L2OpKind::Lookup, id, std::move(keys), {});
  return id;
}

uint64_t RespL2Adapter::submit_load(std::vector<trace::ObjectKey> keys,
                                    std::vector<uint64_t> sizes) {
  const uint64_t id = next_id();
  run_split(L2OpKind::Load, id, std::move(keys), std::move(sizes));
  return id;
}

void RespL2Adapter::submit_unlock(std::vector<trace::ObjectKey> keys) {
  std::lock_guard<std::mutex> g(mu_);
  for (const auto& k : keys) {
    auto it = locks_.find(key_name(k));
    if (it != locks_.end() && --it->second <= 0) locks_.erase(it);
  }
}

std::vector<trace::ObjectKey> RespL2Adapter::delete_keys(
    const std::vector<trace::ObjectKey>& keys) {
  // Accounting changes at once (the DELs are pipelined on a worker): a lookup-locked key is
  // about to be loaded and is skipped, as the fs adapter does.
  std::vector<trace::ObjectKey> deleted;
  std::vector<std::string> names;
  {
    std::lock_guard<std::mutex> g(mu_);
    for (const auto& key : keys) {
      std::string k = key_name(key);
      if (locks_.count(k)) continue;
      auto it = sizes_.find(k);
      if (it != sizes_.end()) {
        used_ -= std::min(used_, it->second);
        sizes_.erase(it);
      }
      deleted.push_back(key);
      names.push_back(std::move(k));
    }
  }
  if (names.empty()) return deleted;
  run([this, names = std::move(names)](size_t w) {
    Conn& c = conn(w);
    if (!connect(c).empty()) return;
    for (const auto& k : names) redisAppendCommand(c.ctx, "DEL %b", k.data(), k.size());
    for (size_t i = 0; i < names.size(); ++i)
      if (!get_reply(c.ctx)) {
        drop(c);
        return;
      }
  });
  return deleted;
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
  auto it = locks_.find(key_name(key));
  return it == locks_.end() ? 0 : it->second;
}

}  // namespace fleet::storage
