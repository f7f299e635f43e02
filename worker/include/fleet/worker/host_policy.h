// The worker operator's policy for what a run may make the worker touch (issue 15): a
// coordinator's START carries an engine config and its HELLO may name a trace file, and without
// a policy either could make the worker create files anywhere (an fs adapter's base_path),
// connect anywhere (a resp adapter's host:port), open anything (a FIFO, a device) or take all
// its memory. The worker's flags set the limits; every run is checked against them before an
// engine is built or a file opened. Everything is refused unless the operator allowed it.
//
// fs adapters (also a fault_inject's `inner`, at any depth up to 8): base_path must be absolute
// (the adapter would resolve a relative one against the worker's working directory) and must
// not contain a ".." component or a NUL. The longest prefix of the (lexically normalised) path
// that exists is resolved with realpath and must be --fs-root itself or inside it,
// component-wise (/srv/fleet2 is not inside /srv/fleet); the rest does not exist yet, holds no
// symlink and no "..", and the adapter creates it under that real prefix. So a symlink in the
// existing part is followed and judged by where it leads.
// relative_tmp_dir must be relative, without "..", and base_path/relative_tmp_dir must pass the
// same check. The check creates nothing. Out of scope: a local user who can create symlinks
// under --fs-root between the check and the adapter's mkdir (a time-of-check race); such a user
// already controls what the worker writes there.
//
// resp adapters: the effective endpoint (LMCACHE_RESP_HOST / LMCACHE_RESP_PORT, the operator's
// environment, override the run's host and port as the adapter applies them) must equal an
// --allow-l2 entry (host case-insensitive, compared literally: no DNS), or the entry is "*"
// (any endpoint: what coordinator --local gives its own child workers). A run never brings
// credentials (a `username` or `password` other than null or "" is refused): they come from
// the worker's --l2-secret-file (l2_credentials.h).
//
// Memory: L1 plus every mock adapter's max_size_gb must stay within --max-l1-gb (when set).
// Unknown adapter types are refused.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "fleet/engine/engine_config.h"
#include "fleet/util/status.h"

namespace fleet::policy {

struct HostPolicyOptions {
  std::string fs_root;  // --fs-root DIR; "" = a run may not introduce an fs adapter
  std::vector<std::string>
      allow_l2;            // --allow-l2 HOST:PORT entries (each may itself be a comma list)
  std::string trace_root;  // --trace-root DIR; "" = shared-trace mode is refused
  double max_l1_gb = 0;    // --max-l1-gb; 0 = no limit
};

class HostPolicy {
 public:
  // Checks the options (fs_root/trace_root exist and are directories; realpath'd once here;
  // allow_l2 entries parse as host:port, [v6]:port accepted; max_l1_gb >= 0). Error messages
  // name the flag (--fs-root ..., --allow-l2 ...).
  static Result<HostPolicy> make(const HostPolicyOptions& options);
  HostPolicy();  // no roots, no allowed endpoints, no limit: refuses fs/resp/shared traces

  // A run's engine config (what START carried), before any engine is built. Error (ExitCode
  // kBadInput) with a message naming the field, the value and the allowed root/list, e.g.
  //   policy: l2_adapters[0] (fs) base_path "/etc/x" is outside --fs-root /srv/fleet
  //   policy: l2_adapters[1] (resp) 10.0.0.9:6379 is not in --allow-l2 (allowed: redis:6379)
  //   policy: l2_adapters[0] (resp) carries a password: L2 credentials come from the worker
  //     (--l2-secret-file), never from a run
  //   policy: the run asks for 96 GB of in-memory tiers (L1 64 GB + mock L2 32 GB), above
  //     --max-l1-gb 80
  //   policy: l2_adapters[0] (fs): a run may not introduce an fs adapter on this worker (start
  //     it with --fs-root DIR)
  // A fault_inject's inner adapter is named l2_adapters[0].inner. The engine's own parsers read
  // each adapter, so what is checked is what the engine would build.
  Status check_run_config(const storage::EngineConfig& run_config) const;

  // A shared-trace path from HELLO: the resolved real path to open, or an error with the reason
  // (no --trace-root; not absolute; outside --trace-root after resolving symlinks; not a regular
  // file: FIFO, device, directory...; does not exist).
  Result<std::string> check_trace_path(const std::string& path) const;
  // A saved routing plan a self-routing worker is asked to read (START's plan_path): the same
  // rules as a shared trace (inside --trace-root, absolute, a regular file), named as a plan.
  Result<std::string> check_plan_path(const std::string& path) const;

  const HostPolicyOptions& options() const { return options_; }  // resolved roots
  // One line for the worker's start log: "fs-root /srv/x, allow-l2 redis:6379, trace-root -,
  // max-l1-gb -".
  std::string describe() const;

 private:
  // A file a run asks this worker to read (`what`: "shared trace", "route plan").
  Result<std::string> check_readable(const std::string& what, const std::string& path) const;

  HostPolicyOptions options_;  // roots realpath'd; allow_l2 one "host:port" per endpoint
  std::vector<std::pair<std::string, int>> allowed_;  // (host lowercased, no [], port)
};

}  // namespace fleet::policy
