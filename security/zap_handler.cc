#include "fleet/security/zap_handler.h"

#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <chrono>
#include <vector>

#include "fleet/security/curve_key.h"

namespace fleet::security {

namespace {

constexpr size_t kMaxLoggedPeers = 1024;
constexpr size_t kMaxRequestFrames = 16;

int64_t monotonic_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string text(const zmq::message_t& m) { return std::string(m.data<char>(), m.size()); }

}  // namespace

ZapHandler::ZapHandler(zmq::context_t& ctx, KeySet authorized)
    : authorized_(std::move(authorized)), sock_(ctx, zmq::socket_type::rep) {
  sock_.set(zmq::sockopt::linger, 0);
  sock_.bind("inproc://zeromq.zap.01");
  wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);  // without one: the 50 ms poll, as before
  thread_ = std::thread([this] { serve(); });
}

ZapHandler::~ZapHandler() {
  stop_.store(true);
  if (wake_fd_ >= 0) {
    const uint64_t one = 1;
    [[maybe_unused]] const auto n = ::write(wake_fd_, &one, sizeof one);
  }
  thread_.join();
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

void ZapHandler::serve() {
  while (!stop_.load()) {
    // A ZeroMQ error here must not leave the thread (that would end the worker): the context
    // ending stops the handler, anything else is logged and the next request served.
    try {
      serve_one();
    } catch (const zmq::error_t& e) {
      if (e.num() == ETERM) return;
      spdlog::error("ZAP handler: {}", e.what());
    }
    if (const uint64_t n = limiter_.take_suppressed(monotonic_ns()); n > 0) {
      spdlog::warn("{} more CURVE handshakes refused (not logged one by one); {} in all", n,
                   refused_.load());
    }
  }
}

void ZapHandler::serve_one() {
  zmq::pollitem_t items[] = {{sock_.handle(), 0, ZMQ_POLLIN, 0},
                             {nullptr, wake_fd_, ZMQ_POLLIN, 0}};
  try {
    zmq::poll(items, wake_fd_ >= 0 ? 2 : 1, std::chrono::milliseconds(50));
  } catch (const zmq::error_t& e) {
    if (e.num() == EINTR) return;
    throw;
  }
  if (!(items[0].revents & ZMQ_POLLIN)) return;
  std::vector<zmq::message_t> request;
  while (true) {
    zmq::message_t m;
    if (!sock_.recv(m, zmq::recv_flags::dontwait)) break;
    const bool more = m.more();
    if (request.size() < kMaxRequestFrames) request.push_back(std::move(m));
    if (!more) break;
  }
  if (!request.empty()) answer(request);
}

// Request: version, request id, domain, address, routing id, mechanism, credentials...
// Reply: version, request id, status code, status text, user id, metadata.
void ZapHandler::answer(std::vector<zmq::message_t>& request) {
  std::string status = "400";
  std::string reason = "malformed ZAP request";
  std::string address;
  std::string key;
  if (request.size() >= 6 && text(request[0]) == "1.0") {
    address = text(request[3]);
    // A dual-stack socket reports IPv4 peers as ::ffff:a.b.c.d: log the address people know.
    if (address.rfind("::ffff:", 0) == 0 && address.find('.') != std::string::npos) {
      address = address.substr(7);
    }
    const std::string mechanism = text(request[5]);
    if (mechanism != "CURVE" || request.size() < 7 || request[6].size() != 32) {
      reason = "mechanism " + mechanism + " is not accepted";
    } else {
      key = z85_of_bytes(std::string_view(request[6].data<char>(), 32));
      if (authorized_.contains(key)) {
        status = "200";
        reason = "OK";
      } else {
        reason = "key not authorized";
      }
    }
  }
  if (status == "200") {
    ++accepted_;
  } else {
    ++refused_;
    note_refusal(address, key, reason.c_str());
  }
  const std::string request_id = request.size() >= 2 ? text(request[1]) : std::string();
  sock_.send(zmq::buffer(std::string("1.0")), zmq::send_flags::sndmore);
  sock_.send(zmq::buffer(request_id), zmq::send_flags::sndmore);
  sock_.send(zmq::buffer(status), zmq::send_flags::sndmore);
  sock_.send(zmq::buffer(reason), zmq::send_flags::sndmore);
  sock_.send(zmq::buffer(status == "200" ? key : std::string()), zmq::send_flags::sndmore);
  sock_.send(zmq::buffer(std::string()), zmq::send_flags::none);
}

void ZapHandler::note_refusal(const std::string& address, const std::string& key_z85,
                              const char* why) {
  const std::string fp = key_z85.empty() ? std::string("-") : fingerprint(key_z85);
  const std::string peer = address + " " + fp;
  if (logged_.count(peer) != 0) return;  // logged once per peer and key
  if (logged_.size() < kMaxLoggedPeers) logged_.insert(peer);
  if (!limiter_.allow(monotonic_ns())) return;
  spdlog::warn("CURVE handshake refused: peer {} key {}: {} ({} refused so far)", address, fp, why,
               refused_.load());
}

}  // namespace fleet::security
