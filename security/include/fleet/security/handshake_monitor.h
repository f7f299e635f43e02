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
//                                              (the refusing side sometimes resets the
//                                              connection before its greeting is read, which
//                                              looks like the row above: peer_accepts_plaintext
//                                              tells the two apart)
#pragma once

#include <string>
#include <zmq.hpp>

namespace fleet::security {

class HandshakeMonitor {
 public:
  enum class Verdict {
    Pending,            // nothing certain yet
    Succeeded,          // a handshake completed
    Refused,            // the peer's ZAP handler refused our key
    KeyMismatch,        // the peer hangs up on our CURVE HELLO: it holds another key
    MechanismMismatch,  // one side speaks CURVE, the other not
    OtherFailure,       // any other handshake failure (detail in detail())
  };

  // Call before `sock` connects. `ctx` is the socket's context.
  HandshakeMonitor(zmq::context_t& ctx, zmq::socket_t& sock);
  ~HandshakeMonitor();
  HandshakeMonitor(const HandshakeMonitor&) = delete;
  HandshakeMonitor& operator=(const HandshakeMonitor&) = delete;

  // Reads the events waiting (never blocks); the verdict sticks once it is not Pending.
  Verdict poll();
  const std::string& detail() const { return detail_; }

 private:
  void on_event(uint16_t event, uint32_t value);

  zmq::socket_t& watched_;
  zmq::socket_t events_;
  Verdict verdict_ = Verdict::Pending;
  int silent_hangups_ = 0;  // connections closed with no handshake event at all
  bool in_connection_ = false;
  std::string detail_;
};

// Whether a plaintext (NULL) handshake with `endpoint` completes within `timeout_ms`: after
// CURVE hang-ups, true means the peer runs without CURVE rather than with another key. The
// probe sends nothing, so the peer's protocol never sees it.
bool peer_accepts_plaintext(zmq::context_t& ctx, const std::string& endpoint, int timeout_ms);

}  // namespace fleet::security
