#include "fleet/coordinator/sweep/sweep_runner.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "fleet/coordinator/session/worker_addresses.h"
#include "fleet/insight/sweep/sweep_summary.h"
#include "fleet/util/json_file.h"

namespace fleet::sweep {

namespace fs = std::filesystem;

std::vector<std::string> base_args_for_sweep(int argc, char** argv,
                                             const std::vector<SweepAxis>& axes) {
  std::set<std::string> with_value = {"--sweep", "--sweep-goal", "--output-dir",
                                      "--local", "--workers",    "--start-at-mono-ns"};
  for (const auto& a : axes) with_value.insert("--" + a.name);
  std::vector<std::string> out;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const std::string flag = arg.substr(0, arg.find('='));
    if (arg == "--sweep-shared-l2") continue;
    if (with_value.count(flag)) {
      if (flag == arg) ++i;  // "--flag value": skip the value too
      continue;
    }
    out.push_back(arg);
  }
  return out;
}

namespace {

int64_t mono_now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

struct Child {
  const Variant* variant;
  std::string dir;
  pid_t pid = -1;
  int code = -1;
  size_t wave = 0;
};

// fork + exec with stdout/stderr into the variant's directory.
// The variants running now, for the signal handler: Ctrl-C or SIGTERM reaches every one of
// them (each stops cleanly and writes its partial report), and the sweep still writes its own.
std::atomic<pid_t> g_running[64];

void forward_signal(int sig) {
  for (auto& p : g_running) {
    const pid_t pid = p.load();
    if (pid > 0) kill(pid, sig);
  }
}

class ForwardSignals {
 public:
  ForwardSignals() {
    old_int_ = std::signal(SIGINT, forward_signal);
    old_term_ = std::signal(SIGTERM, forward_signal);
  }
  ~ForwardSignals() {
    std::signal(SIGINT, old_int_);
    std::signal(SIGTERM, old_term_);
  }

 private:
  void (*old_int_)(int);
  void (*old_term_)(int);
};

pid_t spawn(const std::vector<std::string>& argv, const std::string& dir) {
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  const std::string out = dir + "/coordinator.out", err = dir + "/coordinator.err";
  const pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);  // a sweep killed outright leaves no variant behind
    const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    const int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (o >= 0) dup2(o, STDOUT_FILENO);
    if (e >= 0) dup2(e, STDERR_FILENO);
    execv(cargv[0], cargv.data());
    _exit(127);
  }
  return pid;
}

int wait_code(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

// Worker groups for one wave: `slots` variants at once share `workers` as evenly as possible.
std::vector<std::vector<session::WorkerAddress>> split(
    const std::vector<session::WorkerAddress>& workers, size_t slots) {
  std::vector<std::vector<session::WorkerAddress>> groups(slots);
  for (size_t i = 0; i < workers.size(); ++i) groups[i % slots].push_back(workers[i]);
  return groups;
}

std::string hosts_file_for(const std::vector<session::WorkerAddress>& group,
                           const std::string& path) {
  std::ofstream f(path);
  for (const auto& w : group) {
    f << w.name() << (w.server_key.empty() ? "" : " key=" + w.server_key) << "\n";
  }
  return path;
}

// The exit status of the sweep: the most serious of its variants'.
int worst(const std::vector<Child>& children) {
  auto rank = [](int c) {
    return c == 0 ? 0 : c == 1 ? 1 : c == 2 ? 3 : c == 3 ? 2 : 4;  // interrupts and signals last
  };
  int w = 0;
  for (const auto& c : children)
    if (rank(c.code) > rank(w)) w = c.code;
  return w;
}

}  // namespace

namespace {

using Groups = std::vector<std::vector<session::WorkerAddress>>;

// One wave's shape: how many variants at once, who gets which workers, and their shared T0.
struct Wave {
  size_t index = 0, first = 0, size = 0, pool = 0;
  Groups groups;   // --workers: one group per variant
  int64_t t0 = 0;  // CLOCK_MONOTONIC; 0 = embedded, no shared T0
};

// The child's command line: the user's flags, the variant's values, its directory, its share of
// the workers, the wave's T0 and its L2 key namespace.
std::vector<std::string> variant_argv(const SweepRequest& r, const Variant& v,
                                      const std::string& dir, const Wave& w, size_t k) {
  std::vector<std::string> argv = {r.self};
  argv.insert(argv.end(), r.base_args.begin(), r.base_args.end());
  for (const auto& [name, value] : v.values) argv.push_back("--" + name + "=" + value);
  argv.push_back("--output-dir=" + dir);
  if (r.local > 0) {
    const size_t share = w.pool / w.size + (k < w.pool % w.size ? 1 : 0);
    argv.push_back("--local=" + std::to_string(share));
  } else if (!w.groups.empty()) {
    argv.push_back("--workers=" + hosts_file_for(w.groups[k], dir + "/workers.txt"));
  }
  if (w.t0) argv.push_back("--start-at-mono-ns=" + std::to_string(w.t0));
  if (!r.shared_l2) {
    argv.push_back("--l2-key-namespace=" + key_namespace(v));
  } else if (!r.shared_namespace.empty()) {
    argv.push_back("--l2-key-namespace=" + r.shared_namespace);  // the user's, for all
  }
  return argv;
}

// Starts the wave's variants together and waits for all of them. False: interrupted.
bool run_wave(const SweepRequest& r, const std::vector<Variant>& variants, const Wave& w,
              std::vector<Child>& children) {
  std::error_code ec;
  const size_t begin = children.size();
  for (size_t k = 0; k < w.size; ++k) {
    const Variant& v = variants[w.first + k];
    Child c{&v, (fs::path(r.output_dir) / v.label).string()};
    c.wave = w.index;
    fs::create_directories(c.dir, ec);
    c.pid = spawn(variant_argv(r, v, c.dir, w, k), c.dir);
    if (c.pid > 0 && k < std::size(g_running)) g_running[k].store(c.pid);
    if (c.pid < 0) {
      spdlog::error("sweep: cannot start variant {}: {}", v.label, std::strerror(errno));
      c.code = static_cast<int>(ExitCode::kBadInput);
    }
    spdlog::info("sweep: variant {} started ({})", v.label, c.dir);
    children.push_back(std::move(c));
  }
  bool interrupted = false;
  for (size_t i = begin; i < children.size(); ++i) {
    Child& c = children[i];
    if (c.pid > 0) c.code = wait_code(c.pid);
    interrupted = interrupted || c.code == 130;
    spdlog::info("sweep: variant {} exit {}", c.variant->label, c.code);
  }
  for (auto& p : g_running) p.store(0);
  return !interrupted;
}

// sweep.json, sweep.html and the table, from what the variants left in their directories.
void report_sweep(const SweepRequest& r, const std::vector<Child>& children, bool concurrent) {
  std::vector<VariantRun> runs;
  for (const auto& c : children) runs.push_back({*c.variant, c.dir, c.code, c.wave});
  SweepSummary summary = summarize(r.axes, runs, r.goal, concurrent);
  if (!r.mrc_path.empty()) {
    Result<nlohmann::json> mrc = util::read_json_file(r.mrc_path);  // checked before the sweep
    if (mrc) {
      summary.mrc = std::move(mrc).value();
    } else {
      spdlog::warn("--sweep-mrc {}: not an `lct mrc --json` file ({}); no curve drawn", r.mrc_path,
                   mrc.status().message());
    }
  }
  try {
    write_sweep_outputs(summary, r.output_dir);
  } catch (const std::exception& e) {  // the variants' own outputs stand
    spdlog::warn("sweep.json / sweep.html not written: {}", e.what());
  }
  std::fputs(render_sweep_table(summary).c_str(), stdout);
  std::fflush(stdout);
}

}  // namespace

ExitCode run_sweep(const SweepRequest& r) {
  const std::vector<Variant> variants = expand_grid(r.axes);
  std::vector<session::WorkerAddress> workers;
  if (!r.workers_spec.empty()) {
    auto resolved = session::resolve_workers(r.workers_spec);
    if (!resolved) {
      spdlog::error("{}", resolved.status().message());
      return ExitCode::kBadInput;
    }
    workers = std::move(resolved).value();
  }
  std::set<std::string> namespaces;
  for (const auto& v : variants) namespaces.insert(key_namespace(v));
  if (namespaces.size() != variants.size()) {  // cannot happen with hashed long labels; checked
    spdlog::error("sweep: two variants would share an L2 key namespace");
    return ExitCode::kBadInput;
  }
  const size_t pool = r.local > 0 ? static_cast<size_t>(r.local) : workers.size();
  // Variants at once: one per worker group; embedded variants (no workers) one at a time, since
  // they would share this host's cores and every variant's timing would suffer.
  const size_t slots = pool == 0 ? 1 : std::min(pool, variants.size());
  std::error_code ec;
  fs::create_directories(r.output_dir, ec);
  spdlog::info("sweep: {} variants, {} at a time{}", variants.size(), slots,
               pool ? " on " + std::to_string(pool) + " workers" : std::string(" (embedded)"));

  std::vector<Child> children;
  ForwardSignals forward;
  for (size_t first = 0; first < variants.size(); first += slots) {
    Wave w;
    w.index = first / slots;
    w.first = first;
    w.size = std::min(slots, variants.size() - first);
    w.pool = pool;
    if (!workers.empty()) w.groups = split(workers, w.size);
    // One T0 for the wave: far enough ahead for every child to start its workers and connect.
    if (pool) {
      w.t0 = mono_now_ns() + static_cast<int64_t>((std::max(r.start_delay_s, 1.0) + 2.0) * 1e9);
    }
    if (!run_wave(r, variants, w, children)) {
      spdlog::warn("sweep: interrupted; the variants not started yet are skipped");
      break;
    }
  }
  report_sweep(r, children, slots > 1);
  return static_cast<ExitCode>(worst(children));
}

}  // namespace fleet::sweep
