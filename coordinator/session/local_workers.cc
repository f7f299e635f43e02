#include "fleet/session/local_workers.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <thread>

namespace fleet::session {

std::string LocalWorkers::find_worker_binary() {
  if (const char* env = std::getenv("FLEET_WORKER_BIN")) return env;
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    auto dir = self.parent_path();
    for (auto cand : {dir / "worker", dir / ".." / "worker" / "worker"}) {
      if (std::filesystem::is_regular_file(cand, ec)) return cand.lexically_normal().string();
    }
  }
  return "worker";  // execvp searches PATH
}

LocalWorkers::LocalWorkers(int count, const std::vector<std::string>& extra_args, int timeout_ms) {
  std::string bin = find_worker_binary();
  std::vector<int> fds;
  for (int i = 0; i < count; ++i) {
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) != 0) throw std::runtime_error("--local: pipe failed");
    const pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("--local: fork failed");
    if (pid == 0) {
      // A coordinator killed with SIGKILL cannot stop its workers: have the kernel do it, so
      // no local worker outlives its coordinator.
      prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (getppid() != parent) _exit(0);
      dup2(pipefd[1], STDOUT_FILENO);
      std::vector<std::string> args = {
          bin, "--listen", "tcp://127.0.0.1:0",         "--announce", "--max-runs",
          "1", "--name",   "local-" + std::to_string(i)};
      args.insert(args.end(), extra_args.begin(), extra_args.end());
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execvp(bin.c_str(), argv.data());
      _exit(127);
    }
    close(pipefd[1]);
    pids_.push_back(pid);
    fds.push_back(pipefd[0]);
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (size_t i = 0; i < fds.size(); ++i) {
    std::string line;
    while (line.find('\n') == std::string::npos) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      deadline - std::chrono::steady_clock::now())
                      .count();
      pollfd p{fds[i], POLLIN, 0};
      if (left <= 0 || poll(&p, 1, static_cast<int>(left)) <= 0) {
        for (int fd : fds) close(fd);
        stop();
        throw std::runtime_error("--local: worker " + std::to_string(i) + " (" + bin +
                                 ") did not announce its endpoint in time");
      }
      char buf[256];
      ssize_t n = read(fds[i], buf, sizeof buf);
      if (n <= 0) {
        for (int fd : fds) close(fd);
        stop();
        throw std::runtime_error("--local: worker " + std::to_string(i) + " (" + bin +
                                 ") exited before announcing its endpoint");
      }
      line.append(buf, static_cast<size_t>(n));
    }
    // "LISTENING tcp://127.0.0.1:PORT"
    size_t colon = line.rfind(':');
    addresses_.push_back({"127.0.0.1", std::atoi(line.c_str() + colon + 1)});
    close(fds[i]);
  }
}

LocalWorkers::~LocalWorkers() { stop(); }

void LocalWorkers::stop() {
  for (pid_t pid : pids_) kill(pid, SIGTERM);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  for (pid_t pid : pids_) {
    while (waitpid(pid, nullptr, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  pids_.clear();
}

}  // namespace fleet::session
