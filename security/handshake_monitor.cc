#include "fleet/security/handshake_monitor.h"

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

namespace fleet::security {

namespace {

// Two hang-ups in a row (reconnects come every 100 ms) are not a network blip.
constexpr int kHangupsForMismatch = 2;

std::string next_monitor_endpoint() {
  static std::atomic<uint64_t> n{0};
  return "inproc://fleet-handshake-monitor-" + std::to_string(n.fetch_add(1));
}

}  // namespace

MonitorEvents::MonitorEvents(zmq::context_t& ctx, zmq::socket_t& sock)
    : watched_(sock), events_(ctx, zmq::socket_type::pair) {
  const std::string endpoint = next_monitor_endpoint();
  const int events = ZMQ_EVENT_CONNECTED | ZMQ_EVENT_DISCONNECTED | ZMQ_EVENT_HANDSHAKE_SUCCEEDED |
                     ZMQ_EVENT_HANDSHAKE_FAILED_AUTH | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |
                     ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL;
  if (zmq_socket_monitor(sock.handle(), endpoint.c_str(), events) != 0) throw zmq::error_t();
  events_.set(zmq::sockopt::linger, 0);
  events_.connect(endpoint);
}

MonitorEvents::~MonitorEvents() { zmq_socket_monitor(watched_.handle(), nullptr, 0); }

bool MonitorEvents::next(Event& out) {
  for (;;) {
    zmq::message_t head;
    if (!events_.recv(head, zmq::recv_flags::dontwait)) return false;
    zmq::message_t address;
    if (head.more()) (void)events_.recv(address, zmq::recv_flags::dontwait);
    if (head.size() < 6) continue;
    std::memcpy(&out.event, head.data(), 2);
    std::memcpy(&out.value, head.data<char>() + 2, 4);
    out.endpoint.assign(address.data<char>(), address.size());
    return true;
  }
}

bool peer_accepts_plaintext(zmq::context_t& ctx, const std::string& endpoint, int timeout_ms) {
  zmq::socket_t probe(ctx, zmq::socket_type::dealer);
  probe.set(zmq::sockopt::linger, 0);
  HandshakeMonitor monitor(ctx, probe);
  probe.connect(endpoint);
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < until) {
    const HandshakeMonitor::Verdict v = monitor.poll();
    if (v == HandshakeMonitor::Verdict::Succeeded) return true;
    if (v != HandshakeMonitor::Verdict::Pending) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

HandshakeMonitor::Verdict HandshakeMonitor::poll() {
  MonitorEvents::Event e;
  while (tracker_.verdict() == Verdict::Pending && events_.next(e))
    tracker_.on_event(e.event, e.value);
  return tracker_.verdict();
}

std::string canonical_tcp_endpoint(const std::string& endpoint) {
  std::string e = endpoint.rfind("tcp://", 0) == 0 ? endpoint.substr(6) : endpoint;
  const std::string mapped = "[::ffff:";
  const size_t close = e.find("]:");
  if (e.rfind(mapped, 0) == 0 && close != std::string::npos &&
      e.find_first_not_of("0123456789.", mapped.size()) == close) {
    e = e.substr(mapped.size(), close - mapped.size()) + e.substr(close + 1);
  }
  for (char& c : e) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return e;
}

void HandshakeTracker::on_event(uint16_t event, uint32_t value) {
  if (verdict_ != HandshakeVerdict::Pending) return;  // it sticks
  switch (event) {
    case ZMQ_EVENT_CONNECTED:
      in_connection_ = true;
      return;
    case ZMQ_EVENT_DISCONNECTED:
      if (in_connection_ && ++silent_hangups_ >= kHangupsForMismatch) {
        verdict_ = HandshakeVerdict::KeyMismatch;
      }
      in_connection_ = false;
      return;
    case ZMQ_EVENT_HANDSHAKE_SUCCEEDED:
      verdict_ = HandshakeVerdict::Succeeded;
      return;
    case ZMQ_EVENT_HANDSHAKE_FAILED_AUTH:
      verdict_ = HandshakeVerdict::Refused;
      detail_ = "ZAP status " + std::to_string(value);
      return;
    case ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL:
      if (value == ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH) {
        verdict_ = HandshakeVerdict::MechanismMismatch;
      } else {
        verdict_ = HandshakeVerdict::OtherFailure;
        char hex[16];
        std::snprintf(hex, sizeof hex, "0x%08x", value);
        detail_ = std::string("ZMTP protocol error ") + hex;
      }
      return;
    case ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL:
      // The peer hung up mid-handshake: counted like a silent hang-up (the DISCONNECTED that
      // follows does the counting), since that is how a key mismatch looks too.
      return;
    default:
      return;
  }
}

}  // namespace fleet::security
