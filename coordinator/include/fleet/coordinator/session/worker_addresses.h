// Where the workers are: --workers takes a hosts file (one `host:port [key=<Z85>]` per line, the
// worker's CURVE public key optional; # comments, blank lines), an inline list
// "host:port,host:port", or "dns:NAME:PORT" (every address NAME resolves to — how docker-compose
// and Kubernetes headless services expose replicas).
#pragma once

#include <string>
#include <vector>

#include "fleet/security/protected_mode.h"
#include "fleet/util/status.h"

namespace fleet::session {

struct WorkerAddress {
  std::string host;
  int port = 0;
  std::string server_key;  // the worker's CURVE public key (Z85), "" when not given here
  std::string endpoint() const { return "tcp://" + host + ":" + std::to_string(port); }
  std::string name() const { return host + ":" + std::to_string(port); }
};

// Parses one "host:port" (IPv6 as [addr]:port); an error starts with `where`.
Result<WorkerAddress> parse_host_port(const std::string& text, const std::string& where);
// One hosts-file line: "host:port" then optional `key=<Z85>`; anything else is an error
// starting with `where`.
Result<WorkerAddress> parse_worker_line(const std::string& line, const std::string& where);
// `line` up to a comment: a '#' that begins a word (Z85 keys may contain '#').
std::string strip_comment(const std::string& line);
// Hosts file contents; errors name the file and line number.
Result<std::vector<WorkerAddress>> parse_hosts_file(const std::string& path);
// True for 127.0.0.0/8, ::1, ::ffff:127.x and "localhost": a worker on this host.
using security::is_loopback_host;
// Resolves every spelling above; an error names the flag value.
Result<std::vector<WorkerAddress>> resolve_workers(const std::string& spec);

}  // namespace fleet::session
