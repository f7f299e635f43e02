#include "fleet/worker/worker_node.h"

#include "fleet/wire/protocol.h"
#include "worker_protocol.h"

static_assert(fleet::service::WorkerNode::kMaxPollItems ==
              fleet::service::WorkerProtocol::kMaxPollItems);

namespace fleet::service {

namespace {

// An IPv4 bind on a dual-stack socket reports "[::ffff:a.b.c.d]": announce the plain address.
std::string plain_endpoint(std::string endpoint) {
  if (auto p = endpoint.find("[::ffff:"); p != std::string::npos) {
    if (auto q = endpoint.find(']', p); q != std::string::npos)
      endpoint = endpoint.substr(0, p) + endpoint.substr(p + 8, q - p - 8) + endpoint.substr(q + 1);
  }
  return endpoint;
}

}  // namespace

WorkerNode::WorkerNode(zmq::context_t& ctx, WorkerOptions options)
    : options_(std::move(options)), sock_(ctx, zmq::socket_type::router) {}

WorkerNode::~WorkerNode() = default;

Result<std::unique_ptr<WorkerNode>> WorkerNode::bind(zmq::context_t& ctx, WorkerOptions options,
                                                     util::Clock& clock,
                                                     const std::atomic<bool>& stop) {
  std::unique_ptr<WorkerNode> node(new WorkerNode(ctx, std::move(options)));
  zmq::socket_t& sock = node->sock_;
  const WorkerSecurity& sec = node->options_.security;
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
    sock.bind(node->options_.listen);
  } catch (const zmq::error_t& e) {  // cppzmq reports a failed bind by throwing
    return Status::error("--listen " + node->options_.listen + ": cannot bind: " + e.what());
  }
  node->endpoint_ = plain_endpoint(sock.get(zmq::sockopt::last_endpoint));
  node->protocol_ = std::make_unique<WorkerProtocol>(sock, node->options_, clock, stop);
  return node;
}

void WorkerNode::run() { protocol_->run(); }

size_t WorkerNode::poll_items(zmq::pollitem_t* out) { return protocol_->poll_items(out); }

void WorkerNode::serve(const zmq::pollitem_t* items, size_t n) { protocol_->after_poll(items, n); }

bool WorkerNode::running() const { return protocol_->state() == WorkerProtocol::State::Running; }

bool WorkerNode::stopped() const { return protocol_->state() == WorkerProtocol::State::Stopped; }

}  // namespace fleet::service
