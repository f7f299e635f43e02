#include "fleet/coordinator/session/link_router.h"

#include <netdb.h>
#include <sys/socket.h>

#include <vector>

#include "fleet/wire/protocol.h"

namespace fleet::session {

namespace {

// Every way the monitor may spell a connection to `a`: as given, and each address its host
// resolves to (libzmq reports the resolved one, IPv4-mapped when IPv6 is on).
std::vector<std::string> spellings(const WorkerAddress& a) {
  std::vector<std::string> out{security::canonical_tcp_endpoint(a.endpoint())};
  std::string host = a.host;
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(a.port);
  if (getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0) return out;
  for (const addrinfo* i = found; i; i = i->ai_next) {
    char numeric[NI_MAXHOST];
    if (getnameinfo(i->ai_addr, i->ai_addrlen, numeric, sizeof numeric, nullptr, 0,
                    NI_NUMERICHOST) != 0)
      continue;
    const bool v6 = i->ai_family == AF_INET6;
    out.push_back(security::canonical_tcp_endpoint((v6 ? "[" : "") + std::string(numeric) +
                                                   (v6 ? "]:" : ":") + port));
  }
  freeaddrinfo(found);
  return out;
}

}  // namespace

LinkRouter::LinkRouter(zmq::context_t& ctx, const security::CurveKeyPair* curve)
    : ctx_(ctx), sock_(ctx, zmq::socket_type::router), curve_(curve != nullptr) {
  sock_.set(zmq::sockopt::linger, 0);
  sock_.set(zmq::sockopt::router_mandatory, true);  // a send to a gone pipe fails, not vanishes
  sock_.set(zmq::sockopt::maxmsgsize, static_cast<int64_t>(wire::kMaxMessageBytes));
  sock_.set(zmq::sockopt::handshake_ivl, wire::kHandshakeTimeoutMs);
  sock_.set(zmq::sockopt::sndhwm, 0);  // our own credit window bounds what is queued
  sock_.set(zmq::sockopt::rcvhwm, 0);  // one socket takes what N sockets took
  sock_.set(zmq::sockopt::ipv6, 1);    // [addr]:port workers (hosts files, dns: AAAA records)
  if (curve) {
    sock_.set(zmq::sockopt::curve_publickey, curve->public_z85);
    sock_.set(zmq::sockopt::curve_secretkey, curve->secret_z85);
  }
  events_ = std::make_unique<security::MonitorEvents>(ctx, sock_);
}

LinkRouter::~LinkRouter() {
  events_.reset();
  sock_.set(zmq::sockopt::linger, linger_ms_);
}

void LinkRouter::connect(const WorkerAddress& address, const std::string& identity,
                         const std::string& peer) {
  // Options are taken per connection at connect(): each worker sees its own identity and is
  // held to its own key, as with a socket per worker.
  sock_.set(zmq::sockopt::routing_id, identity);
  sock_.set(zmq::sockopt::connect_routing_id, peer);
  if (curve_) {
    // The worker's key is the one we were given for it: a peer holding another key cannot
    // complete the handshake, so nobody can pose as this worker and receive the trace.
    sock_.set(zmq::sockopt::curve_serverkey, address.server_key);
  }
  for (const std::string& e : spellings(address)) peer_by_endpoint_[e] = peer;
  sock_.connect(address.endpoint());
}

bool LinkRouter::send(const std::string& peer, zmq::message_t& payload) {
  zmq::message_t head(peer.data(), peer.size());
  try {
    if (!sock_.send(head, zmq::send_flags::sndmore | zmq::send_flags::dontwait)) return false;
  } catch (const zmq::error_t& e) {
    if (e.num() == EHOSTUNREACH) return false;
    throw;
  }
  // The peer's pipe took the first frame and has no high-water mark: the second goes too.
  return sock_.send(payload, zmq::send_flags::dontwait).has_value();
}

std::optional<LinkRouter::Incoming> LinkRouter::receive() {
  for (;;) {
    zmq::message_t head;
    if (!sock_.recv(head, zmq::recv_flags::dontwait)) return std::nullopt;
    Incoming in;
    in.peer.assign(head.data<char>(), head.size());
    if (!head.more()) continue;  // a routing id alone: nothing to hand on
    (void)sock_.recv(in.payload, zmq::recv_flags::dontwait);
    while (in.payload.more()) {  // workers send one frame; drop any extra ones
      zmq::message_t extra;
      (void)sock_.recv(extra, zmq::recv_flags::dontwait);
      if (!extra.more()) break;
    }
    return in;
  }
}

const security::HandshakeTracker& LinkRouter::handshake(const std::string& peer) {
  if (events_) {
    security::MonitorEvents::Event e;
    while (events_->next(e)) {
      const auto it = peer_by_endpoint_.find(security::canonical_tcp_endpoint(e.endpoint));
      if (it != peer_by_endpoint_.end()) handshakes_[it->second].on_event(e.event, e.value);
    }
  }
  return handshakes_[peer];
}

}  // namespace fleet::session
