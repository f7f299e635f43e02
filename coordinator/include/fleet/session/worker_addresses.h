// Where the workers are: --workers takes a hosts file (one host:port per line, # comments,
// blank lines), an inline list "host:port,host:port", or "dns:NAME:PORT" (every address NAME
// resolves to — how docker-compose and Kubernetes headless services expose replicas).
#pragma once

#include <string>
#include <vector>

namespace fleet::session {

struct WorkerAddress {
  std::string host;
  int port = 0;
  std::string endpoint() const { return "tcp://" + host + ":" + std::to_string(port); }
  std::string name() const { return host + ":" + std::to_string(port); }
};

// Parses one "host:port" (IPv6 as [addr]:port). Throws std::invalid_argument with `where`.
WorkerAddress parse_host_port(const std::string& text, const std::string& where);
// Hosts file contents; errors name the file and line number.
std::vector<WorkerAddress> parse_hosts_file(const std::string& path);
// True for 127.0.0.0/8, ::1, ::ffff:127.x and "localhost": a worker on this host.
bool is_loopback_host(const std::string& host);
// Resolves every spelling above. Throws std::invalid_argument naming the flag value.
std::vector<WorkerAddress> resolve_workers(const std::string& spec);

}  // namespace fleet::session
