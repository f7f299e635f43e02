// Real child processes for the integration tests: spawn a binary in its own process group with
// stdout/stderr captured to files, wait for a line or for exit with a deadline, and kill the
// whole group (a coordinator's --local workers included) when the test ends or fails, so a
// failing test never leaves load behind.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "scratch_dir.h"
#include "test_paths.h"

namespace fleet::test {

using Clock = std::chrono::steady_clock;

inline std::string bin(const char* rel) { return ::fleet::test::bin_dir() + "/" + rel; }
inline std::string coordinator_bin() { return bin("coordinator/coordinator"); }
inline std::string worker_bin() { return bin("worker/worker"); }

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Polls `pred` every 5 ms until it holds or `timeout` passes. Polling a file or a pid is the
// only signal these processes give; the deadline keeps every wait bounded.
inline bool wait_for(const std::function<bool()>& pred, std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  while (!pred()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

class Process {
 public:
  // Starts argv[0] with stdout/stderr redirected to files in `log_dir` named after `tag`.
  Process(std::vector<std::string> argv, const std::string& log_dir, const std::string& tag)
      : out_path_(log_dir + "/" + tag + ".out"), err_path_(log_dir + "/" + tag + ".err") {
    pid_ = fork();
    if (pid_ == 0) {
      setpgid(0, 0);  // own group: kill(-pid) reaches the children it starts
      int out = open(out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int err = open(err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(out, STDOUT_FILENO);
      dup2(err, STDERR_FILENO);
      std::vector<char*> args;
      for (auto& a : argv) args.push_back(a.data());
      args.push_back(nullptr);
      execv(args[0], args.data());
      _exit(127);
    }
    setpgid(pid_, pid_);  // also from the parent: no race with an early kill
  }
  ~Process() { kill_group(SIGKILL); }
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  pid_t pid() const { return pid_; }
  std::string out() const { return read_file(out_path_); }
  std::string err() const { return read_file(err_path_); }

  // Sends `sig` to the process only (not its group).
  void signal(int sig) {
    if (running()) kill(pid_, sig);
  }
  // Kills the whole group and reaps the process.
  void kill_group(int sig) {
    if (pid_ <= 0) return;
    kill(-pid_, sig);
    if (!exited_) {
      int st = 0;
      if (waitpid(pid_, &st, 0) == pid_) record(st);
    }
  }

  bool running() {
    if (exited_) return false;
    int st = 0;
    if (waitpid(pid_, &st, WNOHANG) == pid_) record(st);
    return !exited_;
  }

  // Exit code (128 + signal when killed), or nullopt when still running at the deadline.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout) {
    if (!wait_for([&] { return !running(); }, timeout)) return std::nullopt;
    return code_;
  }

  // The first stdout line starting with `prefix` (without the prefix), or nullopt.
  std::optional<std::string> wait_stdout_line(const std::string& prefix,
                                              std::chrono::milliseconds timeout) {
    std::optional<std::string> found;
    wait_for(
        [&] {
          std::istringstream in(out());
          for (std::string line; std::getline(in, line);) {
            if (line.rfind(prefix, 0) == 0) {
              found = line.substr(prefix.size());
              return true;
            }
          }
          return !running();
        },
        timeout);
    return found;
  }

  // True once stderr contains `text` (false at the deadline).
  bool wait_stderr(const std::string& text, std::chrono::milliseconds timeout) {
    return wait_for([&] { return err().find(text) != std::string::npos; }, timeout);
  }

 private:
  void record(int st) {
    exited_ = true;
    code_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  }
  pid_t pid_ = -1;
  bool exited_ = false;
  int code_ = -1;
  std::string out_path_, err_path_;
};

// A worker started by the test: binds an ephemeral loopback port and announces it.
class WorkerProcess {
 public:
  WorkerProcess(const std::string& log_dir, const std::string& name,
                std::vector<std::string> extra = {})
      : proc_(args(name, std::move(extra)), log_dir, name) {
    auto line = proc_.wait_stdout_line("LISTENING ", std::chrono::seconds(20));
    if (!line) return;
    // "ENDPOINT" or "ENDPOINT key=<Z85>" (a keyed worker announces its public key).
    const size_t space = line->find(' ');
    endpoint_ = line->substr(0, space);
    if (space != std::string::npos && line->compare(space + 1, 4, "key=") == 0) {
      key_ = line->substr(space + 5);
    }
  }
  bool ok() const { return !endpoint_.empty(); }
  // The CURVE public key it announced ("" for a plaintext worker).
  const std::string& key() const { return key_; }
  // "127.0.0.1:PORT" for --workers.
  std::string host_port() const { return endpoint_.substr(endpoint_.find("//") + 2); }
  const std::string& endpoint() const { return endpoint_; }
  Process& proc() { return proc_; }

 private:
  static std::vector<std::string> args(const std::string& name, std::vector<std::string> extra) {
    std::vector<std::string> a = {worker_bin(), "--listen", "tcp://127.0.0.1:0",
                                  "--announce", "--name",   name};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  Process proc_;
  std::string endpoint_;
  std::string key_;
};

// Peak resident set (VmHWM) of a live process, in bytes; 0 when unreadable.
inline uint64_t vm_hwm_bytes(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  }
  return 0;
}

// `coordinator ARGS` through the shell, stdout and stderr captured in `dir` (CLI tests).
struct CliRun {
  int code = -1;
  std::string out, err;
};
inline CliRun run_coordinator(const std::string& args, const ScratchDir& dir) {
  const std::string out = (dir.path() / "out").string(), err = (dir.path() / "err").string();
  const int st = std::system((coordinator_bin() + " " + args + " >" + out + " 2>" + err).c_str());
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, read_file(out), read_file(err)};
}

}  // namespace fleet::test
