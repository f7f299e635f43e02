// CURVE over real loopback sockets in one process: the ZAP handler admits only authorized keys,
// and the handshake monitor names each failure the coordinator can meet (refused key, wrong
// server key, CURVE on one side only) within moments, which is what the coordinator reports.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <zmq.hpp>

#include "fleet/security/curve_key.h"
#include "fleet/security/handshake_monitor.h"
#include "fleet/security/zap_handler.h"

namespace fleet::security {
namespace {

using Verdict = HandshakeMonitor::Verdict;

// A worker-like ROUTER, CURVE with a ZAP handler unless `plain`.
struct Server {
  explicit Server(const KeySet& authorized, bool plain = false)
      : keys(generate_key_pair()), sock(ctx, zmq::socket_type::router) {
    if (!plain) zap = std::make_unique<ZapHandler>(ctx, authorized);
    sock.set(zmq::sockopt::linger, 0);
    if (!plain) {
      sock.set(zmq::sockopt::curve_server, 1);
      sock.set(zmq::sockopt::curve_secretkey, keys.secret_z85);
      sock.set(zmq::sockopt::zap_domain, "fleet");
    }
    sock.bind("tcp://127.0.0.1:0");
    endpoint = sock.get(zmq::sockopt::last_endpoint);
  }
  // True when a message arrives within `ms`.
  bool receives(int ms) {
    zmq::pollitem_t item{sock.handle(), 0, ZMQ_POLLIN, 0};
    zmq::poll(&item, 1, std::chrono::milliseconds(ms));
    return (item.revents & ZMQ_POLLIN) != 0;
  }
  zmq::context_t ctx;
  CurveKeyPair keys;
  std::unique_ptr<ZapHandler> zap;
  zmq::socket_t sock;
  std::string endpoint;
};

// A coordinator-like DEALER; CURVE when `own` is given.
struct Client {
  Client(const std::string& endpoint, const CurveKeyPair* own, const std::string& server_key)
      : sock(ctx, zmq::socket_type::dealer) {
    sock.set(zmq::sockopt::linger, 0);
    if (own) {
      sock.set(zmq::sockopt::curve_serverkey, server_key);
      sock.set(zmq::sockopt::curve_publickey, own->public_z85);
      sock.set(zmq::sockopt::curve_secretkey, own->secret_z85);
    }
    monitor = std::make_unique<HandshakeMonitor>(ctx, sock);
    sock.connect(endpoint);
    sock.send(zmq::buffer(std::string("hello")), zmq::send_flags::dontwait);
  }
  // The first verdict other than Pending within `ms` (Pending when none).
  Verdict verdict(int ms) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    Verdict v = Verdict::Pending;
    while ((v = monitor->poll()) == Verdict::Pending && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return v;
  }
  zmq::context_t ctx;
  zmq::socket_t sock;
  std::unique_ptr<HandshakeMonitor> monitor;
};

TEST(CurveHandshake, AuthorizedKeyConnectsAndItsMessageArrives) {
  const CurveKeyPair coordinator = generate_key_pair();
  KeySet authorized;
  authorized.add(coordinator.public_z85, "test");
  Server server(authorized);
  Client client(server.endpoint, &coordinator, server.keys.public_z85);
  EXPECT_EQ(client.verdict(3000), Verdict::Succeeded);
  EXPECT_TRUE(server.receives(3000));
  EXPECT_EQ(server.zap->accepted(), 1u);
  EXPECT_EQ(server.zap->refused(), 0u);
}

TEST(CurveHandshake, UnauthorizedKeyIsRefusedAndNothingArrives) {
  KeySet authorized;
  authorized.add(generate_key_pair().public_z85, "someone else");
  Server server(authorized);
  const CurveKeyPair intruder = generate_key_pair();
  Client client(server.endpoint, &intruder, server.keys.public_z85);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(client.verdict(3000), Verdict::Refused);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  EXPECT_NE(client.monitor->detail().find("400"), std::string::npos);
  EXPECT_FALSE(server.receives(300));
  EXPECT_GE(server.zap->refused(), 1u);
  EXPECT_EQ(server.zap->accepted(), 0u);
}

TEST(CurveHandshake, WrongServerKeyIsAMismatchAndNothingArrives) {
  const CurveKeyPair coordinator = generate_key_pair();
  KeySet authorized;
  authorized.add(coordinator.public_z85, "test");
  Server server(authorized);
  Client client(server.endpoint, &coordinator, generate_key_pair().public_z85);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(client.verdict(3000), Verdict::KeyMismatch);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  EXPECT_FALSE(server.receives(300));
  EXPECT_EQ(server.zap->accepted(), 0u);  // the server never got as far as asking
  EXPECT_FALSE(peer_accepts_plaintext(client.ctx, server.endpoint, 2000))
      << "a keyed server refuses the plaintext probe: the key is what differs";
}

TEST(CurveHandshake, CurveOnOneSideOnlyIsAMechanismMismatch) {
  const CurveKeyPair coordinator = generate_key_pair();
  KeySet authorized;
  authorized.add(coordinator.public_z85, "test");
  {
    // The keyed server often hangs up on the plaintext greeting before the client has read
    // why: either verdict means "the peer wants CURVE" to a plaintext client (WorkerLink).
    Server keyed(authorized);
    Client plain(keyed.endpoint, nullptr, "");
    const Verdict v = plain.verdict(3000);
    EXPECT_TRUE(v == Verdict::MechanismMismatch || v == Verdict::KeyMismatch)
        << static_cast<int>(v);
    EXPECT_FALSE(keyed.receives(200));
  }
  {
    // Usually named by the greeting; when the reset beats it, the plaintext probe does.
    Server plain(authorized, /*plain=*/true);
    Client keyed(plain.endpoint, &coordinator, plain.keys.public_z85);
    const Verdict v = keyed.verdict(3000);
    EXPECT_TRUE(v == Verdict::MechanismMismatch || v == Verdict::KeyMismatch)
        << static_cast<int>(v);
    EXPECT_TRUE(peer_accepts_plaintext(keyed.ctx, plain.endpoint, 2000));
    EXPECT_FALSE(plain.receives(200));
  }
}

// The coordinator's ROUTER monitor names connections by endpoint, spelled as libzmq resolved
// them: a reconnect with IPv6 on reports the IPv4-mapped form.
TEST(CanonicalEndpoint, EverySpellingOfOneConnectionIsOne) {
  EXPECT_EQ(canonical_tcp_endpoint("tcp://127.0.0.1:5555"), "127.0.0.1:5555");
  EXPECT_EQ(canonical_tcp_endpoint("tcp://[::ffff:127.0.0.1]:5555"), "127.0.0.1:5555");
  EXPECT_EQ(canonical_tcp_endpoint("tcp://Worker-1:5555"), "worker-1:5555");
  EXPECT_EQ(canonical_tcp_endpoint("tcp://[::1]:5555"), "[::1]:5555");
  EXPECT_EQ(canonical_tcp_endpoint("tcp://[::ffff:abcd::1]:5555"), "[::ffff:abcd::1]:5555");
  EXPECT_EQ(canonical_tcp_endpoint("inproc://x"), "inproc://x");
}

// Two connections through one monitored socket: each event lands on its own endpoint's tracker.
TEST(HandshakeTracker, AVerdictSticksAndCountsHangUpsPerConnection) {
  HandshakeTracker a;
  a.on_event(ZMQ_EVENT_CONNECTED, 0);
  a.on_event(ZMQ_EVENT_DISCONNECTED, 0);
  EXPECT_EQ(a.verdict(), HandshakeVerdict::Pending);  // one hang-up may be a blip
  a.on_event(ZMQ_EVENT_CONNECTED, 0);
  a.on_event(ZMQ_EVENT_DISCONNECTED, 0);
  EXPECT_EQ(a.verdict(), HandshakeVerdict::KeyMismatch);
  a.on_event(ZMQ_EVENT_HANDSHAKE_SUCCEEDED, 0);
  EXPECT_EQ(a.verdict(), HandshakeVerdict::KeyMismatch);
  HandshakeTracker b;
  b.on_event(ZMQ_EVENT_HANDSHAKE_FAILED_AUTH, 400);
  EXPECT_EQ(b.verdict(), HandshakeVerdict::Refused);
  EXPECT_EQ(b.detail(), "ZAP status 400");
}

}  // namespace
}  // namespace fleet::security
