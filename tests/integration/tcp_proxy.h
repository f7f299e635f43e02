// A user-space TCP proxy for the fault tests: listens on an ephemeral loopback port, forwards
// every connection to a target port, and can add latency, stall (hold every byte: a partition
// that keeps the connections up) or drop every connection, while a run goes through it. It
// stands in for `tc netem` where the kernel has no sch_netem. One thread, poll(2).
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace fleet::test {

class TcpProxy {
 public:
  explicit TcpProxy(int target_port) : target_port_(target_port) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(listen_fd_, 16);
    socklen_t len = sizeof a;
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { loop(); });
  }
  ~TcpProxy() {
    stop_ = true;
    thread_.join();
    for (auto& p : pairs_) close_pair(p);
    ::close(listen_fd_);
  }
  TcpProxy(const TcpProxy&) = delete;
  TcpProxy& operator=(const TcpProxy&) = delete;

  int port() const { return port_; }
  std::string host_port() const { return "127.0.0.1:" + std::to_string(port_); }
  // Every byte is held this long before it is forwarded (each direction).
  void set_delay(std::chrono::milliseconds d) { delay_ms_ = d.count(); }
  // While stalled nothing is forwarded (bytes wait, connections stay open).
  void set_stalled(bool s) { stalled_ = s; }
  // Closes every open connection once (both sides see a reset/EOF); new ones are accepted.
  void drop_connections() { drop_ = true; }
  uint64_t connections() const { return accepted_; }

 private:
  using Clock = std::chrono::steady_clock;
  struct Chunk {
    Clock::time_point due;
    std::string bytes;
  };
  struct Pair {
    int a = -1, b = -1;            // client side, target side
    std::deque<Chunk> to_b, to_a;  // waiting to be written
  };

  static void nonblock(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }
  static void close_pair(Pair& p) {
    if (p.a >= 0) ::close(p.a);
    if (p.b >= 0) ::close(p.b);
    p.a = p.b = -1;
  }

  void accept_one() {
    int c = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) return;
    int t = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<uint16_t>(target_port_));
    if (::connect(t, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      ::close(c);
      ::close(t);
      return;
    }
    int one = 1;
    setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(t, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    nonblock(c);
    nonblock(t);
    pairs_.push_back({c, t, {}, {}});
    ++accepted_;
  }

  // Reads what `from` has into `q`; false on EOF or error.
  bool pull(int from, std::deque<Chunk>& q) {
    char buf[65536];
    while (true) {
      ssize_t n = ::read(from, buf, sizeof buf);
      if (n > 0) {
        q.push_back({Clock::now() + std::chrono::milliseconds(delay_ms_.load()),
                     std::string(buf, static_cast<size_t>(n))});
        continue;
      }
      if (n == 0) return false;
      return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    }
  }
  // Writes the chunks that are due; false on error.
  bool push(int to, std::deque<Chunk>& q) {
    const auto now = Clock::now();
    while (!q.empty() && q.front().due <= now) {
      std::string& s = q.front().bytes;
      ssize_t n = ::send(to, s.data(), s.size(), MSG_NOSIGNAL);
      if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
      s.erase(0, static_cast<size_t>(n));
      if (!s.empty()) return true;
      q.pop_front();
    }
    return true;
  }

  void loop() {
    while (!stop_) {
      if (drop_.exchange(false)) {
        for (auto& p : pairs_) close_pair(p);
        pairs_.clear();
      }
      std::vector<pollfd> fds{{listen_fd_, POLLIN, 0}};
      const bool stalled = stalled_;
      for (auto& p : pairs_) {
        // While stalled, reads stop too: the peers' socket buffers fill as on a dead path.
        fds.push_back({p.a, static_cast<short>(stalled ? 0 : POLLIN), 0});
        fds.push_back({p.b, static_cast<short>(stalled ? 0 : POLLIN), 0});
      }
      ::poll(fds.data(), fds.size(), 2);
      const size_t polled = pairs_.size();  // a pair accepted now has no entry in fds yet
      if (fds[0].revents & POLLIN) accept_one();
      if (stalled) continue;
      for (size_t i = 0; i < polled; ++i) {
        Pair& p = pairs_[i];
        if (p.a < 0) continue;
        bool ok = true;
        if (fds[1 + 2 * i].revents & (POLLIN | POLLHUP | POLLERR)) ok = pull(p.a, p.to_b) && ok;
        if (fds[2 + 2 * i].revents & (POLLIN | POLLHUP | POLLERR)) ok = pull(p.b, p.to_a) && ok;
        ok = push(p.b, p.to_b) && ok;
        ok = push(p.a, p.to_a) && ok;
        if (!ok) close_pair(p);
      }
      std::erase_if(pairs_, [](const Pair& p) { return p.a < 0; });
    }
  }

  int target_port_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false}, stalled_{false}, drop_{false};
  std::atomic<int64_t> delay_ms_{0};
  std::atomic<uint64_t> accepted_{0};
  std::vector<Pair> pairs_;  // the proxy thread's own
  std::thread thread_;
};

}  // namespace fleet::test
