// An engine that accepts every call and does nothing: replays through it measure the
// replayer's own overhead. It still reports the digest of its config.
#pragma once

#include <atomic>

#include "fleet/engine/engine.h"
#include "fleet/engine/engine_config.h"

namespace fleet::storage {

class NoopEngine final : public engine::Engine {
 public:
  explicit NoopEngine(const EngineConfig& cfg) : cfg_(cfg), digest_(cfg.digest()) {}

  std::string_view name() const override { return "noop"; }
  engine::CallResult reserve_write(const std::vector<trace::ObjectKey>&, const trace::MemoryLayout&,
                                   trace::WriteMode) override {
    return count();
  }
  engine::CallResult finish_write(const std::vector<trace::ObjectKey>&) override { return count(); }
  engine::CallResult abort_write(const std::vector<trace::ObjectKey>&) override { return count(); }
  engine::CallResult submit_prefetch(const trace::PrefetchSpec&, std::string_view, bool) override {
    return count();
  }
  engine::CallResult read_enter(const std::vector<trace::ObjectKey>& keys,
                                engine::ReadContext& ctx) override {
    ctx.keys = keys;  // good_keys stays empty: nothing is locked, so exit releases nothing
    ctx.all_good = true;
    return count();
  }
  engine::CallResult read_exit(engine::ReadContext&) override { return count(); }
  engine::CallResult finish_read(const std::vector<trace::ObjectKey>&, int64_t) override {
    return count();
  }
  void close(bool) override {}
  const EngineConfig* engine_config() const override { return &cfg_; }
  std::string config_digest() const override { return digest_; }
  engine::Counters counters() const override {
    engine::Counters c;
    c.add("engine", "noop");
    c.add("calls", calls_.load());
    c.add("config_digest", digest_);
    return c;
  }

 private:
  engine::CallResult count() {
    calls_.fetch_add(1, std::memory_order_relaxed);
    return engine::CallResult::ok();
  }
  EngineConfig cfg_;
  std::string digest_;
  std::atomic<uint64_t> calls_{0};
};

}  // namespace fleet::storage
