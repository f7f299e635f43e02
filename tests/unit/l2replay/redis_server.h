// A redis-server on a free loopback port for the test's lifetime (as tests/unit/storage/
// resp_test.cc starts one); start() is false when there is none on this host.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace fleet::l2replay::build {

class RedisServer {
 public:
  bool start() {
    std::string bin;
    for (const char* p : {"/usr/bin/redis-server", "/usr/local/bin/redis-server"})
      if (::access(p, X_OK) == 0) bin = p;
    if (bin.empty()) return false;
    port_ = free_port();
    std::vector<std::string> args = {bin,          "--port",       std::to_string(port_),
                                     "--bind",     "127.0.0.1",    "--save",
                                     "",           "--appendonly", "no",
                                     "--loglevel", "warning"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    // Its output to /dev/null: a server left behind must not hold the test runner's pipe open.
    posix_spawn_file_actions_t quiet;
    posix_spawn_file_actions_init(&quiet);
    posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&quiet, 2, "/dev/null", O_WRONLY, 0);
    const int spawned = posix_spawn(&pid_, bin.c_str(), &quiet, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&quiet);
    if (spawned != 0) return false;
    for (int i = 0; i < 200; ++i) {  // up to ~5 s
      timeval tv{0, 200000};
      redisContext* c = redisConnectWithTimeout("127.0.0.1", port_, tv);
      const bool up = c && !c->err;
      if (c) redisFree(c);
      if (up) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    return false;
  }
  ~RedisServer() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int st = 0;
      ::waitpid(pid_, &st, 0);
    }
  }
  int port() const { return port_; }

 private:
  static int free_port() {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
    socklen_t len = sizeof(a);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    const int port = ntohs(a.sin_port);
    ::close(fd);
    return port;
  }
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace fleet::l2replay::build
