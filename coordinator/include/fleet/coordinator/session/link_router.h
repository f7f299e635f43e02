// The coordinator's one socket to every worker: a ROUTER that connects to each worker with a
// routing id it chose, so that a poll pass is one item whatever the fleet's size and each
// message names its link by its first frame (docs/scaling.md, "One socket for every link").
// The workers' side is unchanged: a ROUTER sees the same identity-prefixed messages from a
// ROUTER as from a DEALER. Lives on the coordinator's main thread.
#pragma once

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <zmq.hpp>

#include "fleet/coordinator/session/worker_addresses.h"
#include "fleet/security/curve_key.h"
#include "fleet/security/handshake_monitor.h"

namespace fleet::session {

class LinkRouter {
 public:
  // With `curve` (the coordinator's key pair) every connection speaks CURVE and authenticates
  // its worker by the key its address carries; without, plaintext.
  LinkRouter(zmq::context_t& ctx, const security::CurveKeyPair* curve);
  ~LinkRouter();
  LinkRouter(const LinkRouter&) = delete;
  LinkRouter& operator=(const LinkRouter&) = delete;

  // Connects to `address`, introducing itself as `identity`; messages to and from it carry
  // `peer` (unique per connection, not empty, not starting with a zero byte).
  void connect(const WorkerAddress& address, const std::string& identity, const std::string& peer);
  // Handed to ZeroMQ without a copy, never blocking: false when the peer has no pipe left
  // (ROUTER_MANDATORY), i.e. its connection ended in a protocol error and will not come back.
  bool send(const std::string& peer, zmq::message_t& payload);
  struct Incoming {
    std::string peer;
    zmq::message_t payload;
  };
  // The next waiting message (non-blocking); a malformed one (no payload frame) is skipped.
  std::optional<Incoming> receive();
  zmq::socket_t& socket() { return sock_; }
  zmq::context_t& context() { return ctx_; }

  // What the socket monitor says of the connection to `peer`, until stop_monitoring().
  const security::HandshakeTracker& handshake(const std::string& peer);
  // Every link answered (or failed): the monitor's events are no longer read.
  void stop_monitoring() { events_.reset(); }
  // A link's last message must still be delivered after the run: closing waits up to `ms`.
  void linger_on_close(int ms) { linger_ms_ = std::max(linger_ms_, ms); }

 private:
  zmq::context_t& ctx_;
  zmq::socket_t sock_;
  const bool curve_;
  // The monitor names each event's connection by its endpoint, spelled as libzmq resolved it:
  // every spelling of a link's address (canonical_tcp_endpoint) leads to its peer.
  std::unique_ptr<security::MonitorEvents> events_;
  std::unordered_map<std::string, std::string> peer_by_endpoint_;
  std::unordered_map<std::string, security::HandshakeTracker> handshakes_;  // by peer
  int linger_ms_ = 0;
};

}  // namespace fleet::session
