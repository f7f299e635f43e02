#include "fleet/coordinator/session/local_workers.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "fleet/security/certificate.h"

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

namespace {

// The flags every local worker gets, unless --local-worker-arg gives them itself.
std::vector<std::string> policy_args(const std::vector<std::string>& extra) {
  std::vector<std::string> out;
  auto add = [&](const char* flag, const char* value) {
    const std::string with_value = std::string(flag) + "=";
    for (const auto& a : extra) {
      if (a == flag || a.rfind(with_value, 0) == 0) return;  // the user's own value wins
    }
    out.push_back(flag);
    out.push_back(value);
  };
  add("--fs-root", "/");
  add("--trace-root", "/");
  add("--allow-l2", "*");
  return out;
}

// "LISTENING tcp://127.0.0.1:PORT[ key=<Z85>]" (Z85 may hold ':', so split on the space).
WorkerAddress parse_announcement(const std::string& line) {
  std::istringstream words(line);
  std::string word;
  std::string endpoint;
  words >> word >> endpoint;
  WorkerAddress a{"127.0.0.1", std::atoi(endpoint.c_str() + endpoint.rfind(':') + 1), ""};
  while (words >> word) {
    if (word.rfind("key=", 0) == 0) a.server_key = word.substr(4);
  }
  return a;
}

}  // namespace

Status LocalWorkers::write_coordinator_certificate(const security::CurveKeyPair& key) {
  std::string tmpl = (std::filesystem::temp_directory_path() / "fleet-local-keys-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) return Status::error("--local: cannot create a key directory");
  key_dir_ = tmpl;  // 0700 from mkdtemp
  security::Certificate cert{"coordinator", key.public_z85, ""};
  std::ofstream out(key_dir_ + "/coordinator.key");
  out << security::format_public_certificate(cert);
  out.close();
  if (!out) return Status::error("--local: cannot write " + key_dir_ + "/coordinator.key");
  return Status();
}

void LocalWorkers::remove_key_dir() {
  if (key_dir_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(key_dir_, ec);
  key_dir_.clear();
}

namespace {

// One line from `fd` before `deadline`, without its newline, or why none came.
Result<std::string> read_line(int fd, std::chrono::steady_clock::time_point deadline) {
  std::string line;
  while (line.find('\n') == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    pollfd p{fd, POLLIN, 0};
    if (left <= 0 || poll(&p, 1, static_cast<int>(left)) <= 0) {
      return Status::error("did not announce its endpoint in time");
    }
    char buf[256];
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) {
      return Status::error("exited before announcing its endpoint");
    }
    line.append(buf, static_cast<size_t>(n));
  }
  return line.substr(0, line.find('\n'));
}

}  // namespace

int LocalWorkers::spawn(int index, const std::string& bin, const std::vector<std::string>& flags) {
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) return -1;
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    close(pipefd[0]);
    close(pipefd[1]);
    return -1;
  }
  if (pid == 0) {
    // A coordinator killed with SIGKILL cannot stop its workers: have the kernel do it, so
    // no local worker outlives its coordinator.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(0);
    dup2(pipefd[1], STDOUT_FILENO);
    std::vector<std::string> args = {bin,
                                     "--listen",
                                     "tcp://127.0.0.1:0",
                                     "--announce",
                                     "--max-runs",
                                     "1",
                                     "--name",
                                     "local-" + std::to_string(index)};
    args.insert(args.end(), flags.begin(), flags.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execvp(bin.c_str(), argv.data());
    _exit(127);
  }
  close(pipefd[1]);
  pids_.push_back(pid);
  return pipefd[0];
}

Status LocalWorkers::abandon(const std::vector<int>& open_fds, const std::string& why) {
  for (int fd : open_fds) close(fd);
  stop();  // the workers already started, and the key directory
  return Status::error("--local: " + why);
}

Result<std::unique_ptr<LocalWorkers>> LocalWorkers::start(
    int count, const std::vector<std::string>& extra_args,
    const security::CurveKeyPair* coordinator_key, int timeout_ms) {
  std::unique_ptr<LocalWorkers> workers(new LocalWorkers());
  if (Status s = workers->start_all(count, extra_args, coordinator_key, timeout_ms); !s) return s;
  return workers;
}

Status LocalWorkers::start_all(int count, const std::vector<std::string>& extra_args,
                               const security::CurveKeyPair* coordinator_key, int timeout_ms) {
  const std::string bin = find_worker_binary();
  std::vector<std::string> flags = policy_args(extra_args);
  if (coordinator_key) {
    if (Status s = write_coordinator_certificate(*coordinator_key); !s) return s;
    flags.insert(flags.end(),
                 {"--ephemeral-key", "--authorized-keys", key_dir_ + "/coordinator.key"});
  }
  flags.insert(flags.end(), extra_args.begin(), extra_args.end());
  std::vector<int> fds;
  for (int i = 0; i < count; ++i) {
    const int fd = spawn(i, bin, flags);
    if (fd < 0) return abandon(fds, std::string("cannot start a worker: ") + std::strerror(errno));
    fds.push_back(fd);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (size_t i = 0; i < fds.size(); ++i) {
    const std::string who = "worker " + std::to_string(i) + " (" + bin + ")";
    const Result<std::string> line = read_line(fds[i], deadline);
    const std::vector<int> still_open(fds.begin() + static_cast<long>(i), fds.end());
    if (!line) return abandon(still_open, who + " " + line.status().message());
    addresses_.push_back(parse_announcement(line.value()));
    if (coordinator_key && !security::is_z85_key(addresses_.back().server_key)) {
      return abandon(still_open, who + " announced no valid CURVE key (an older worker binary?)");
    }
    close(fds[i]);
  }
  remove_key_dir();  // every worker has read it
  return Status();
}

LocalWorkers::~LocalWorkers() { stop(); }

namespace {

// Waits for `pid` to exit until `deadline`; true once it is reaped. A pidfd wakes the wait the
// moment the worker exits (a fixed 10 ms sleep cost up to 20 ms of every --local run's end);
// without one (an old kernel, or a poll that fails), it checks every millisecond.
bool reap_before(pid_t pid, std::chrono::steady_clock::time_point deadline) {
#ifdef SYS_pidfd_open
  const int fd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
#else
  const int fd = -1;
#endif
  bool reaped = waitpid(pid, nullptr, WNOHANG) != 0;
  for (auto now = std::chrono::steady_clock::now(); !reaped && now < deadline;
       now = std::chrono::steady_clock::now()) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count();
    pollfd p{fd, POLLIN, 0};
    if (fd < 0 || poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 1000))) < 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));  // no pidfd, or poll failed
    }
    reaped = waitpid(pid, nullptr, WNOHANG) != 0;
  }
  if (fd >= 0) close(fd);
  return reaped;
}

}  // namespace

void LocalWorkers::stop(const std::vector<size_t>& unresponsive) {
  remove_key_dir();
  for (size_t i = 0; i < pids_.size(); ++i) {
    const bool silent =
        std::find(unresponsive.begin(), unresponsive.end(), i) != unresponsive.end();
    kill(pids_[i], silent ? SIGKILL : SIGTERM);
    if (!silent) kill(pids_[i], SIGCONT);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  for (pid_t pid : pids_) {
    if (!reap_before(pid, deadline)) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
  pids_.clear();
}

}  // namespace fleet::session
