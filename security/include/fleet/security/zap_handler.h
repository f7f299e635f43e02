// The worker's ZAP handler (ZeroMQ RFC 27): libzmq asks it, for every CURVE handshake on a
// socket of this context, whether the client's public key may connect; it answers 200 only for
// keys in the --authorized-keys set, so an unknown coordinator never gets past the handshake
// (no message of its reaches the worker's protocol). Runs on its own thread, bound before the
// worker binds its socket. Each refused (peer address, key) is logged once with the key's
// fingerprint; the rest are counted and summarised at a bounded rate.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <zmq.hpp>

#include "fleet/security/key_set.h"
#include "fleet/util/log_limiter.h"

namespace fleet::security {

class ZapHandler {
 public:
  // Binds inproc://zeromq.zap.01 in `ctx`; throws zmq::error_t when another handler has.
  ZapHandler(zmq::context_t& ctx, KeySet authorized);
  ~ZapHandler();
  ZapHandler(const ZapHandler&) = delete;
  ZapHandler& operator=(const ZapHandler&) = delete;

  uint64_t accepted() const { return accepted_.load(); }
  uint64_t refused() const { return refused_.load(); }

 private:
  void serve();
  void serve_one();  // one poll, and the request it brought
  void answer(std::vector<zmq::message_t>& request);
  void note_refusal(const std::string& address, const std::string& key_z85, const char* why);

  KeySet authorized_;
  zmq::socket_t sock_;
  std::atomic<bool> stop_{false};
  int wake_fd_ = -1;  // eventfd: the destructor wakes the poll (a timeout cost up to 50 ms)
  std::atomic<uint64_t> accepted_{0};
  std::atomic<uint64_t> refused_{0};
  std::set<std::string> logged_;  // "address key" pairs already logged (bounded)
  util::LogLimiter limiter_;
  std::thread thread_;
};

}  // namespace fleet::security
