#include "fleet/worker/worker_service.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <zmq.hpp>

#include "fleet/security/protected_mode.h"
#include "fleet/security/zap_handler.h"
#include "fleet/util/clock.h"
#include "fleet/worker/worker_node.h"

namespace fleet::service {

namespace {

std::string host_name() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
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
  util::Clock& clock = options_.clock ? *options_.clock : util::RealClock::instance();
  auto node = WorkerNode::bind(ctx, options_, clock, stop_flag());
  if (!node) return node.status();
  endpoint_ = node.value()->endpoint();
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
  node.value()->run();
  return Status();
}

}  // namespace fleet::service
