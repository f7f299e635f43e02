// A test engine that records the calls it receives (in order) so dispatcher and session tests
// can assert exactly what LMCache's dispatcher rules make the engine see.
#pragma once

#include <string>
#include <vector>

#include "fleet/engine/engine.h"

namespace fleet::replay::testing {

class RecordingEngine : public engine::Engine {
 public:
  std::vector<std::string> calls;  // "enter:<first hash byte>", "exit:<...>", ...
  bool fail_reserve = false;

  static std::string tag(const std::vector<trace::ObjectKey>& keys) {
    std::string t;
    for (const auto& k : keys) t += k.chunk_hash;
    return t;
  }
  std::string_view name() const override { return "recording"; }
  engine::CallResult reserve_write(const std::vector<trace::ObjectKey>& keys,
                                   const trace::MemoryLayout&, trace::WriteMode) override {
    calls.push_back("reserve:" + tag(keys));
    return fail_reserve ? engine::CallResult::fail("boom") : engine::CallResult::ok();
  }
  engine::CallResult finish_write(const std::vector<trace::ObjectKey>& keys) override {
    calls.push_back("finish:" + tag(keys));
    return {};
  }
  engine::CallResult abort_write(const std::vector<trace::ObjectKey>& keys) override {
    calls.push_back("abort:" + tag(keys));
    return {};
  }
  engine::CallResult submit_prefetch(const trace::PrefetchSpec& spec, std::string_view id,
                                     bool) override {
    calls.push_back("prefetch:" + tag(spec.keys) + ":" + std::string(id));
    return {};
  }
  engine::CallResult read_enter(const std::vector<trace::ObjectKey>& keys,
                                engine::ReadContext& ctx) override {
    ctx.keys = keys;
    ctx.good_keys = keys;
    ctx.all_good = true;
    ++enters_;
    calls.push_back("enter:" + tag(keys) + "#" + std::to_string(enters_));
    return {};
  }
  engine::CallResult read_exit(engine::ReadContext& ctx) override {
    calls.push_back("exit:" + tag(ctx.keys));
    return {};
  }
  engine::CallResult finish_read(const std::vector<trace::ObjectKey>& keys, int64_t n) override {
    calls.push_back("finish_read:" + tag(keys) + ":" + std::to_string(n));
    return {};
  }
  void close(bool) override { calls.push_back("close"); }
  std::string config_digest() const override { return "recording"; }
  engine::Counters counters() const override {
    engine::Counters c;
    c.add("calls", calls.size());
    return c;
  }

 private:
  int enters_ = 0;
};

inline trace::ObjectKey key(char c) {
  trace::ObjectKey k;
  k.chunk_hash = std::string(1, c);
  k.model_name = "m";
  return k;
}

}  // namespace fleet::replay::testing
