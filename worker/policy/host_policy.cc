#include "fleet/worker/host_policy.h"

#include <sys/stat.h>

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "fleet/engine/fault_inject_l2_adapter.h"
#include "fleet/engine/fs_l2_adapter.h"
#include "fleet/engine/mock_l2_adapter.h"
#include "fleet/engine/resp_l2_adapter.h"
#include "fleet/util/file_type.h"

namespace fleet::policy {

namespace {

namespace fs = std::filesystem;

constexpr int kMaxNesting = 8;  // fault_inject inside fault_inject...: no real config goes deeper
constexpr double kGiB = 1073741824.0;

Status refuse(const std::string& message) { return Status::error("policy: " + message); }

// A value as JSON text: quoted, with control bytes escaped, whatever the coordinator sent.
std::string quoted(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// 64, 0.5, 1.25: as short as the value allows.
std::string gb_text(double gb) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", gb);
  std::string s = buf;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

std::string endpoint_text(const std::string& host, int port) {
  if (host == "*") return host;  // any endpoint
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

std::string lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// The real path, or "" (errno says why).
std::string real_path(const std::string& path) {
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf) == nullptr) return "";
  return buf;
}

// Component-wise: /srv/fleet2 is not inside /srv/fleet.
bool inside(const std::string& real, const std::string& root) {
  if (root == "/") return true;
  return real == root || (real.size() > root.size() && real.compare(0, root.size(), root) == 0 &&
                          real[root.size()] == '/');
}

bool has_dotdot(const std::string& path) {
  for (const auto& part : fs::path(path))
    if (part == "..") return true;
  return false;
}

Result<std::string> resolve_root(const std::string& flag, const std::string& dir) {
  const std::string real = real_path(dir);
  const int err = errno;
  if (real.empty()) return Status::error(flag + " " + dir + ": " + std::strerror(err));
  struct stat st {};
  if (::stat(real.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return Status::error(flag + " " + dir + ": not a directory");
  return real;
}

// HOST:PORT or [V6]:PORT.
Result<std::pair<std::string, int>> parse_endpoint(const std::string& item) {
  const Status bad = Status::error("--allow-l2 " + quoted(item) +
                                   ": expected HOST:PORT ([ADDRESS]:PORT for IPv6), port 1-65535");
  std::string host, port;
  if (!item.empty() && item[0] == '[') {
    const size_t close = item.find(']');
    if (close == std::string::npos || close + 1 >= item.size() || item[close + 1] != ':')
      return bad;
    host = item.substr(1, close - 1);
    port = item.substr(close + 2);
  } else {
    const size_t colon = item.find(':');
    if (colon == std::string::npos || item.find(':', colon + 1) != std::string::npos) return bad;
    host = item.substr(0, colon);
    port = item.substr(colon + 1);
  }
  if (host.empty() || port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string::npos)
    return bad;
  const int p = std::atoi(port.c_str());
  if (p < 1 || p > 65535) return bad;
  return std::make_pair(lower(host), p);
}

// Walks one run's adapters; sums the memory the mock adapters will hold.
class AdapterCheck {
 public:
  AdapterCheck(const HostPolicyOptions& options,
               const std::vector<std::pair<std::string, int>>& allowed)
      : o_(options), allowed_(allowed) {}

  Status adapter(const nlohmann::json& spec, const std::string& field, int depth) {
    if (depth > kMaxNesting)
      return refuse(field + ": adapters nested deeper than " + std::to_string(kMaxNesting));
    if (!spec.is_object() || !spec.contains("type") || !spec["type"].is_string())
      return refuse(field + ": not an adapter spec (a JSON object with a string \"type\")");
    const std::string type = spec["type"].get<std::string>();
    const std::string where = field + " (" + type + ")";
    // The engine's own parsers: what passes here is what the engine builds.
    if (type == "mock") {
      const Result<storage::MockL2Config> c = storage::MockL2Config::from_json(spec);
      if (!c) return refuse(where + ": " + c.status().message());
      mock_gb += c->max_size_gb;
      return {};
    }
    if (type == "fs") return fs_adapter(spec, field, where);
    if (type == "resp") return resp_adapter(spec, where);
    if (type == "fault_inject") {
      const Result<storage::FaultInjectConfig> c = storage::FaultInjectConfig::from_json(spec);
      if (!c) return refuse(where + ": " + c.status().message());
      return adapter(c->inner, field + ".inner", depth + 1);
    }
    return refuse(field + ": unknown adapter type " + quoted(type) +
                  " (known: mock, fs, resp, fault_inject)");
  }

  double mock_gb = 0;

 private:
  Status fs_adapter(const nlohmann::json& spec, const std::string& field,
                    const std::string& where) {
    if (o_.fs_root.empty())
      return refuse(field +
                    " (fs): a run may not introduce an fs adapter on this worker (start it "
                    "with --fs-root DIR)");
    const Result<storage::FsL2Config> parsed = storage::FsL2Config::from_json(spec);
    if (!parsed) return refuse(where + ": " + parsed.status().message());
    const storage::FsL2Config& c = parsed.value();
    if (Status s = fs_path(where, "base_path", c.base_path); !s) return s;
    if (!c.relative_tmp_dir) return {};
    const std::string& tmp = *c.relative_tmp_dir;
    if (!tmp.empty() && tmp[0] == '/')
      return refuse(where + " relative_tmp_dir " + quoted(tmp) + " must be relative");
    if (has_dotdot(tmp))
      return refuse(where + " relative_tmp_dir " + quoted(tmp) + " must not contain \"..\"");
    return fs_path(where, "base_path/relative_tmp_dir", (fs::path(c.base_path) / tmp).string());
  }

  // The rule of the header: no "..", relative to --fs-root, the existing prefix resolved.
  Status fs_path(const std::string& where, const std::string& what, const std::string& path) {
    const std::string head = where + " " + what + " " + quoted(path);
    if (path.find('\0') != std::string::npos) return refuse(head + " contains a NUL byte");
    if (has_dotdot(path)) return refuse(head + " must not contain \"..\"");
    // Absolute only: the adapter would resolve a relative path against the worker's working
    // directory, not against --fs-root.
    if (!fs::path(path).is_absolute())
      return refuse(head + " is not an absolute path (it must be inside --fs-root " + o_.fs_root +
                    ")");
    fs::path full = fs::path(path).lexically_normal();
    std::string text = full.string();
    while (text.size() > 1 && text.back() == '/') text.pop_back();
    // The longest prefix that exists (a dangling symlink counts: realpath then refuses it).
    fs::path prefix = text;
    struct stat st {};
    while (::lstat(prefix.c_str(), &st) != 0 && prefix != prefix.root_path())
      prefix = prefix.parent_path();
    const std::string real = real_path(prefix.string());
    const int err = errno;
    if (real.empty())
      return refuse(head + ": " + prefix.string() + " cannot be resolved (" + std::strerror(err) +
                    ")");
    if (!inside(real, o_.fs_root)) {
      std::string why = head + " is outside --fs-root " + o_.fs_root;
      if (real != prefix.string()) why += " (" + prefix.string() + " resolves to " + real + ")";
      return refuse(why);
    }
    return {};
  }

  Status resp_adapter(const nlohmann::json& spec, const std::string& where) {
    // null or "" carries nothing (LMCache's defaults, as a recorded config may spell them out).
    for (const char* secret : {"password", "username"})
      if (spec.contains(secret) && !spec[secret].is_null() && spec[secret] != "")
        return refuse(where + " carries a " + secret +
                      ": L2 credentials come from the worker (--l2-secret-file), never from a "
                      "run");
    // With LMCACHE_RESP_HOST / _PORT applied, as the adapter will connect.
    const Result<storage::RespL2Config> parsed = storage::RespL2Config::from_json(spec);
    if (!parsed) return refuse(where + ": " + parsed.status().message());
    const storage::RespL2Config& c = parsed.value();
    const std::string host = lower(c.host);
    for (const auto& [h, p] : allowed_)
      if (h == "*" || (h == host && p == c.port)) return {};
    std::string allowed;
    for (const auto& [h, p] : allowed_)
      allowed += (allowed.empty() ? "" : ", ") + endpoint_text(h, p);
    std::string why = where + " " + endpoint_text(c.host, c.port) +
                      " is not in --allow-l2 (allowed: " + (allowed.empty() ? "none" : allowed) +
                      ")";
    if (std::getenv("LMCACHE_RESP_HOST") || std::getenv("LMCACHE_RESP_PORT"))
      why += "; the worker's LMCACHE_RESP_HOST/LMCACHE_RESP_PORT override the run's endpoint";
    return refuse(why);
  }

  const HostPolicyOptions& o_;
  const std::vector<std::pair<std::string, int>>& allowed_;
};

}  // namespace

HostPolicy::HostPolicy() = default;

Result<HostPolicy> HostPolicy::make(const HostPolicyOptions& options) {
  HostPolicy p;
  if (!options.fs_root.empty()) {
    Result<std::string> r = resolve_root("--fs-root", options.fs_root);
    if (!r) return r.status();
    p.options_.fs_root = r.value();
  }
  if (!options.trace_root.empty()) {
    Result<std::string> r = resolve_root("--trace-root", options.trace_root);
    if (!r) return r.status();
    p.options_.trace_root = r.value();
  }
  for (const std::string& entry : options.allow_l2) {
    size_t begin = 0;
    while (true) {  // each entry may be a comma list
      const size_t comma = entry.find(',', begin);
      const std::string item = trim(entry.substr(begin, comma - begin));
      // "*": any endpoint (coordinator --local gives it to its own child workers).
      Result<std::pair<std::string, int>> ep =
          item == "*" ? Result<std::pair<std::string, int>>(std::make_pair(item, 0))
                      : parse_endpoint(item);
      if (!ep) return ep.status();
      p.allowed_.push_back(ep.value());
      p.options_.allow_l2.push_back(endpoint_text(ep->first, ep->second));
      if (comma == std::string::npos) break;
      begin = comma + 1;
    }
  }
  if (!std::isfinite(options.max_l1_gb) || options.max_l1_gb < 0)
    return Status::error("--max-l1-gb " + gb_text(options.max_l1_gb) +
                         ": must be a number >= 0 (0 = no limit)");
  p.options_.max_l1_gb = options.max_l1_gb;
  return p;
}

Status HostPolicy::check_run_config(const storage::EngineConfig& run_config) const {
  AdapterCheck check(options_, allowed_);
  for (size_t i = 0; i < run_config.l2_adapters.size(); ++i) {
    const std::string field = "l2_adapters[" + std::to_string(i) + "]";
    nlohmann::json spec;
    try {
      spec = nlohmann::json::parse(run_config.l2_adapters[i]);
    } catch (const nlohmann::json::parse_error& e) {  // the engine would refuse it too
      return refuse(field + ": not valid JSON (" + e.what() + ")");
    }
    if (Status s = check.adapter(spec, field, 0); !s) return s;
  }
  if (options_.max_l1_gb > 0) {
    // In bytes, as the L1 and the mock adapters size themselves.
    // In double: an integer sum could wrap (a huge L1 plus a mock adapter) and pass.
    const double l1_gb = static_cast<double>(run_config.l1_size_in_bytes) / kGiB;
    const double total_gb = l1_gb + check.mock_gb;
    if (!std::isfinite(total_gb) || check.mock_gb < 0 || total_gb > options_.max_l1_gb) {
      std::string parts = "L1 " + gb_text(l1_gb) + " GB";
      if (check.mock_gb > 0) parts += " + mock L2 " + gb_text(check.mock_gb) + " GB";
      return refuse("the run asks for " + gb_text(total_gb) + " GB of in-memory tiers (" + parts +
                    "), above --max-l1-gb " + gb_text(options_.max_l1_gb));
    }
  }
  return {};
}

Result<std::string> HostPolicy::check_trace_path(const std::string& path) const {
  return check_readable("shared trace", path);
}

Result<std::string> HostPolicy::check_plan_path(const std::string& path) const {
  return check_readable("route plan", path);
}

Result<std::string> HostPolicy::check_readable(const std::string& what,
                                               const std::string& path) const {
  const std::string head = what + " " + quoted(path);
  if (options_.trace_root.empty())
    return refuse(head +
                  ": this worker does not read shared traces (start it with --trace-root DIR)");
  if (path.find('\0') != std::string::npos) return refuse(head + " contains a NUL byte");
  if (path.empty() || path[0] != '/') return refuse(head + " is not an absolute path");
  const std::string real = real_path(path);
  const int err = errno;
  if (real.empty()) {
    if (err == ENOENT) return refuse(head + " does not exist");
    return refuse(head + ": " + std::strerror(err));
  }
  if (!inside(real, options_.trace_root)) {
    std::string why = head + " is outside --trace-root " + options_.trace_root;
    if (real != path) why += " (it resolves to " + real + ")";
    return refuse(why);
  }
  // stat never opens: a FIFO cannot block it. SharedTrace checks the descriptor again.
  struct stat st {};
  if (::stat(real.c_str(), &st) != 0) return refuse(head + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    return refuse(head + " is not a regular file (" + util::file_type_name(st.st_mode) + ")");
  return real;
}

std::string HostPolicy::describe() const {
  auto or_dash = [](const std::string& s) { return s.empty() ? std::string("-") : s; };
  std::string allow;
  for (const auto& e : options_.allow_l2) allow += (allow.empty() ? "" : ",") + e;
  return "fs-root " + or_dash(options_.fs_root) + ", allow-l2 " + or_dash(allow) + ", trace-root " +
         or_dash(options_.trace_root) + ", max-l1-gb " +
         (options_.max_l1_gb > 0 ? gb_text(options_.max_l1_gb) : "-");
}

}  // namespace fleet::policy
