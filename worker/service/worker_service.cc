#include "fleet/worker/worker_service.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <zmq.hpp>

#include "fleet/security/protected_mode.h"
#include "fleet/security/zap_handler.h"
#include "fleet/util/clock.h"
#include "fleet/wire/protocol.h"
#include "worker_protocol.h"

namespace fleet::service {

namespace {

std::string host_name() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

// An IPv4 bind on a dual-stack socket reports "[::ffff:a.b.c.d]": announce the plain address.
std::string plain_endpoint(std::string endpoint) {
  if (auto p = endpoint.find("[::ffff:"); p != std::string::npos) {
    if (auto q = endpoint.find(']', p); q != std::string::npos)
      endpoint = endpoint.substr(0, p) + endpoint.substr(p + 8, q - p - 8) + endpoint.substr(q + 1);
  }
  return endpoint;
}

}  // namespace

WorkerService::WorkerService(WorkerOptions options) : options_(std::move(options)) {
  if (options_.name.empty()) options_.name = host_name();
}

WorkerService::~WorkerService() = default;

std::string WorkerService::endpoint() const { return bound_.load() ? endpoint_ : std::string(); }

Status WorkerService::serve() {
  const WorkerSecurity& sec = options_.security;
  if (Status s = security::check_listen_transport(options_.listen); !s) return s;
  if (Status s =
          security::check_protected_mode(options_.listen, sec.curve.has_value(), sec.insecure);
      !s) {
    return s;
  }
  if (sec.insecure && !sec.curve) {
    spdlog::warn(
        "--insecure: no CURVE; anyone who can reach {} can drive this worker within its policy "
        "({})",
        options_.listen, options_.policy.describe());
  }
  zmq::context_t ctx(1);
  // The ZAP handler must be bound before the socket can see a handshake.
  std::unique_ptr<security::ZapHandler> zap;
  if (sec.curve) zap = std::make_unique<security::ZapHandler>(ctx, sec.authorized);
  zmq::socket_t sock(ctx, zmq::socket_type::router);
  sock.set(zmq::sockopt::linger, 0);
  // Nothing a coordinator sends is larger than a batch: a bigger frame is refused by libzmq
  // from its header, before anything is allocated for it.
  sock.set(zmq::sockopt::maxmsgsize, static_cast<int64_t>(wire::kMaxToWorkerBytes));
  sock.set(zmq::sockopt::handshake_ivl, wire::kHandshakeTimeoutMs);
  sock.set(zmq::sockopt::ipv6, 1);  // tcp://[::]:P and tcp://*:P are dual-stack
  if (sec.curve) {
    sock.set(zmq::sockopt::curve_server, 1);
    sock.set(zmq::sockopt::curve_secretkey, sec.curve->secret_z85);
    sock.set(zmq::sockopt::zap_domain, "fleet");
  }
  try {
    sock.bind(options_.listen);
  } catch (const zmq::error_t& e) {  // cppzmq reports a failed bind by throwing
    return Status::error("--listen " + options_.listen + ": cannot bind: " + e.what());
  }
  endpoint_ = plain_endpoint(sock.get(zmq::sockopt::last_endpoint));
  bound_.store(true);
  if (sec.curve) {
    spdlog::info("worker {} listening on {} (CURVE, key {}, {} coordinator key(s) authorized)",
                 options_.name, endpoint_, security::fingerprint(sec.curve->public_z85),
                 sec.authorized.size());
  } else {
    spdlog::info("worker {} listening on {} (plaintext)", options_.name, endpoint_);
  }
  spdlog::info("policy: {}", options_.policy.describe());
  if (options_.announce) {
    // The public key travels with the endpoint, so a --local coordinator can authenticate
    // workers whose keys exist only in memory.
    std::string line = "LISTENING " + endpoint_;
    if (sec.curve) line += " key=" + sec.curve->public_z85;
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  }
  util::Clock& clock = options_.clock ? *options_.clock : util::RealClock::instance();
  WorkerProtocol protocol(sock, options_, clock, stop_flag());
  protocol.run();
  return Status();
}

}  // namespace fleet::service
