// Names a failed ZeroMQ handshake on a connecting socket from the socket monitor's events, so a
// refused key is reported within moments as what it is instead of as a peer that never
// answered. What libzmq 4.3 shows the connecting side (measured; docs/security.md):
//   our key refused by the peer's ZAP handler  HANDSHAKE_FAILED_AUTH, status 400
//   the peer is not the key we expect          CONNECTED/DISCONNECTED cycles, no handshake event
//                                              (the peer cannot open our HELLO and hangs up)
//   one side CURVE, the other not              HANDSHAKE_FAILED_PROTOCOL, MECHANISM_MISMATCH
//                                              (the refusing side sometimes resets the
//                                              connection before its greeting is read, which
//                                              looks like the row above: peer_accepts_plaintext
//                                              tells the two apart)
// One socket connected to many peers (the coordinator's ROUTER) has one monitor whose events
// carry each connection's endpoint: its owner keeps a HandshakeTracker per peer, finding the
// peer by canonical_tcp_endpoint.
#pragma once

#include <cstdint>
#include <string>
#include <zmq.hpp>

namespace fleet::security {

enum class HandshakeVerdict {
  Pending,            // nothing certain yet
  Succeeded,          // a handshake completed
  Refused,            // the peer's ZAP handler refused our key
  KeyMismatch,        // the peer hangs up on our CURVE HELLO: it holds another key
  MechanismMismatch,  // one side speaks CURVE, the other not
  OtherFailure,       // any other handshake failure (detail())
};

// One connection's handshakes told by its monitor events; the verdict sticks once it is not
// Pending.
class HandshakeTracker {
 public:
  void on_event(uint16_t event, uint32_t value);
  HandshakeVerdict verdict() const { return verdict_; }
  const std::string& detail() const { return detail_; }

 private:
  HandshakeVerdict verdict_ = HandshakeVerdict::Pending;
  int silent_hangups_ = 0;  // connections closed with no handshake event at all
  bool in_connection_ = false;
  std::string detail_;
};

// The monitor events of one socket, read without blocking. Start before the socket connects.
class MonitorEvents {
 public:
  MonitorEvents(zmq::context_t& ctx, zmq::socket_t& sock);
  ~MonitorEvents();
  MonitorEvents(const MonitorEvents&) = delete;
  MonitorEvents& operator=(const MonitorEvents&) = delete;

  struct Event {
    uint16_t event = 0;
    uint32_t value = 0;
    std::string endpoint;  // the connection's, as given to connect()
  };
  // The next waiting event, or false.
  bool next(Event& out);

 private:
  zmq::socket_t& watched_;
  zmq::socket_t events_;
};

// A socket with one peer: one verdict.
class HandshakeMonitor {
 public:
  using Verdict = HandshakeVerdict;
  // Call before `sock` connects. `ctx` is the socket's context.
  HandshakeMonitor(zmq::context_t& ctx, zmq::socket_t& sock) : events_(ctx, sock) {}

  // Reads the events waiting (never blocks).
  Verdict poll();
  const std::string& detail() const { return tracker_.detail(); }

 private:
  MonitorEvents events_;
  HandshakeTracker tracker_;
};

// "tcp://HOST:PORT" as one connection's monitor events may spell it, in one spelling: the
// scheme dropped, an IPv4-mapped IPv6 host ("[::ffff:10.0.0.7]", what libzmq reports for a
// reconnect with IPv6 enabled) as its IPv4 address, a hostname in lower case. Other strings
// come back unchanged.
std::string canonical_tcp_endpoint(const std::string& endpoint);

// Whether a plaintext (NULL) handshake with `endpoint` completes within `timeout_ms`: after
// CURVE hang-ups, true means the peer runs without CURVE rather than with another key. The
// probe sends nothing, so the peer's protocol never sees it.
bool peer_accepts_plaintext(zmq::context_t& ctx, const std::string& endpoint, int timeout_ms);

}  // namespace fleet::security
