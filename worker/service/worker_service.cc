#include "fleet/service/worker_service.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>
#include <zmq.hpp>

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

void WorkerService::serve() {
  zmq::context_t ctx(1);
  zmq::socket_t sock(ctx, zmq::socket_type::router);
  sock.set(zmq::sockopt::linger, 0);
  sock.set(zmq::sockopt::maxmsgsize, static_cast<int64_t>(wire::kMaxMessageBytes));
  sock.set(zmq::sockopt::ipv6, 1);  // tcp://[::]:P and tcp://*:P are dual-stack
  try {
    sock.bind(options_.listen);
  } catch (const zmq::error_t& e) {
    throw std::runtime_error("--listen " + options_.listen + ": cannot bind: " + e.what());
  }
  endpoint_ = plain_endpoint(sock.get(zmq::sockopt::last_endpoint));
  bound_.store(true);
  spdlog::info("worker {} listening on {}", options_.name, endpoint_);
  if (options_.announce) {
    std::printf("LISTENING %s\n", endpoint_.c_str());
    std::fflush(stdout);
  }
  util::Clock& clock = options_.clock ? *options_.clock : util::RealClock::instance();
  WorkerProtocol protocol(sock, options_, clock, stop_);
  protocol.run();
}

}  // namespace fleet::service
