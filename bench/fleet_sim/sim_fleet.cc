#include "sim_fleet.h"

#include <chrono>
#include <cstdio>
#include <thread>

#include "fleet/security/curve_key.h"
#include "fleet/util/clock.h"
#include "fleet/wire/poll.h"

namespace fleet::sim {

namespace {

int64_t unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Node 7 of 1,000 is "sim-0007": names sort as the coordinator lists them.
std::string node_name(int i, int n) {
  std::string digits = std::to_string(i);
  const size_t width = std::to_string(n - 1).size();
  return "sim-" + std::string(width > digits.size() ? width - digits.size() : 0, '0') + digits;
}

}  // namespace

SimFleet::SimFleet(const SimOptions& o)
    : o_(o), clock_(int64_t{o.spin_us} * 1000), ctx_(o.io_threads) {
  // Every node's socket, plus the ZAP handler's and libzmq's own (reaper, monitors): the
  // default of 1,023 sockets per context is below a 1,000-node fleet.
  ctx_.set(zmq::ctxopt::max_sockets, o.workers + 64);
}

SimFleet::~SimFleet() {
  nodes_.clear();  // the sockets close before the ZAP handler and the context
  zap_.reset();
}

Result<std::unique_ptr<SimFleet>> SimFleet::start(const SimOptions& o,
                                                  const std::string& coordinator_public_z85) {
  std::unique_ptr<SimFleet> f(new SimFleet(o));
  if (o.curve) {
    security::KeySet authorized;
    authorized.add(coordinator_public_z85, "fleet_sim");
    f->zap_ = std::make_unique<security::ZapHandler>(f->ctx_, std::move(authorized));
  }
  for (int i = 0; i < o.workers; ++i) {
    service::WorkerOptions w;
    w.listen = "tcp://" + o.host + ":0";
    w.name = node_name(i, o.workers);
    w.engine.engine_name = "noop";
    w.heartbeat_ms = o.heartbeat_ms;
    w.max_runs = o.runs;
    if (o.curve) {
      w.security.curve = security::generate_key_pair();
      f->public_keys_.push_back(w.security.curve->public_z85);
    }
    auto node = service::WorkerNode::bind(f->ctx_, std::move(w), f->clock_, f->never_);
    if (!node) return node.status();
    f->nodes_.push_back(std::move(node).value());
  }
  f->running_since_ns_.assign(f->nodes_.size(), 0);
  return f;
}

std::string SimFleet::workers_file() const {
  std::string out;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    std::string ep = nodes_[i]->endpoint();  // tcp://127.0.0.1:PORT
    if (ep.rfind("tcp://", 0) == 0) ep = ep.substr(6);
    out += ep;
    if (o_.curve) out += " key=" + public_keys_[i];
    out += "  # " + nodes_[i]->options().name + "\n";
  }
  return out;
}

void SimFleet::maybe_freeze(size_t i, int64_t now_ns) {
  if (running_since_ns_[i] == 0 && nodes_[i]->running()) running_since_ns_[i] = now_ns;
  if (static_cast<int>(i) != o_.freeze_index || tally_.frozen_at_unix_ms) return;
  if (running_since_ns_[i] == 0) return;
  if (now_ns - running_since_ns_[i] < static_cast<int64_t>(o_.freeze_after_s * 1e9)) return;
  tally_.frozen_at_unix_ms = unix_ms();
  tally_.frozen_name = nodes_[i]->options().name;
  std::printf("FROZEN %s %lld\n", tally_.frozen_name.c_str(),
              static_cast<long long>(*tally_.frozen_at_unix_ms));
  std::fflush(stdout);
}

void SimFleet::serve(const std::atomic<bool>& stop) {
  using Steady = std::chrono::steady_clock;
  std::vector<zmq::pollitem_t> items(nodes_.size() * service::WorkerNode::kMaxPollItems);
  std::vector<size_t> first(nodes_.size()), count(nodes_.size());
  while (!stop.load()) {
    const auto pass_began = Steady::now();
    size_t n = 0, live = 0;
    for (size_t i = 0; i < nodes_.size(); ++i) {
      count[i] = 0;
      if (nodes_[i]->stopped() ||
          (tally_.frozen_at_unix_ms && static_cast<int>(i) == o_.freeze_index))
        continue;
      ++live;
      first[i] = n;
      count[i] = nodes_[i]->poll_items(&items[n]);
      n += count[i];
    }
    if (live == 0) break;
    wire::poll_sockets(items.data(), n, std::chrono::milliseconds(10));
    const int64_t now = clock_.now_ns();
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (count[i] == 0) continue;
      nodes_[i]->serve(&items[first[i]], count[i]);
      maybe_freeze(i, now);
    }
    ++tally_.passes;
    const auto floor = pass_began + std::chrono::microseconds(o_.min_pass_us);
    if (Steady::now() < floor) std::this_thread::sleep_until(floor);
  }
  tally_.finished = 0;
  for (const auto& node : nodes_) tally_.finished += node->stopped() ? 1 : 0;
}

}  // namespace fleet::sim
