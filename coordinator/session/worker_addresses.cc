#include "fleet/coordinator/session/worker_addresses.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "fleet/security/curve_key.h"

namespace fleet::session {

namespace {

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return "";
  size_t b = s.find_last_not_of(" \t\r\n");
  return s.substr(a, b - a + 1);
}

Result<int> parse_port(const std::string& p, const std::string& where) {
  if (p.empty() || p.size() > 5 || !std::all_of(p.begin(), p.end(), ::isdigit)) {
    return Status::error(where + ": port \"" + p + "\" is not a number");
  }
  int port = std::stoi(p);
  if (port < 1 || port > 65535) return Status::error(where + ": port " + p + " out of range");
  return port;
}

// `a` with the port `text` names, or why it names none.
Result<WorkerAddress> with_port(WorkerAddress a, const std::string& text,
                                const std::string& where) {
  Result<int> port = parse_port(text, where);
  if (!port) return port.status();
  a.port = port.value();
  return a;
}

}  // namespace

Result<WorkerAddress> parse_host_port(const std::string& text, const std::string& where) {
  std::string t = trim(text);
  WorkerAddress a;
  if (!t.empty() && t[0] == '[') {
    size_t close = t.find(']');
    if (close == std::string::npos || close + 1 >= t.size() || t[close + 1] != ':') {
      return Status::error(where + ": \"" + t + "\" is not [IPv6]:port");
    }
    a.host = t.substr(0, close + 1);
    return with_port(std::move(a), t.substr(close + 2), where);
  }
  size_t colon = t.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    return Status::error(where + ": \"" + t + "\" is not host:port");
  }
  a.host = t.substr(0, colon);
  if (a.host.find_first_of(" \t/") != std::string::npos) {
    return Status::error(where + ": \"" + a.host + "\" is not a host name");
  }
  return with_port(std::move(a), t.substr(colon + 1), where);
}

Result<WorkerAddress> parse_worker_line(const std::string& line, const std::string& where) {
  std::istringstream words(line);
  std::string host_port;
  words >> host_port;
  Result<WorkerAddress> a = parse_host_port(host_port, where);
  if (!a) return a;
  for (std::string word; words >> word;) {
    if (word.rfind("key=", 0) != 0) {
      return Status::error(where + ": unexpected \"" + word +
                           "\" (a line is host:port [key=<Z85 public key>])");
    }
    a->server_key = word.substr(4);
    if (!security::is_z85_key(a->server_key)) {
      return Status::error(where + ": key= is not a 40-character Z85 CURVE public key");
    }
  }
  return a;
}

std::string strip_comment(const std::string& line) {
  // A comment starts at a '#' that begins a word: Z85 keys may hold '#' themselves.
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '#' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) {
      return line.substr(0, i);
    }
  }
  return line;
}

Result<std::vector<WorkerAddress>> parse_hosts_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::error("--workers " + path + ": cannot open hosts file");
  std::vector<WorkerAddress> out;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    line = trim(strip_comment(line));
    if (line.empty()) continue;
    Result<WorkerAddress> a = parse_worker_line(line, path + ":" + std::to_string(n));
    if (!a) return a.status();
    out.push_back(std::move(a).value());
  }
  if (out.empty()) return Status::error("--workers " + path + ": no workers listed");
  return out;
}

namespace {

// "dns:NAME:PORT": every address NAME resolves to, each once, sorted.
Result<std::vector<WorkerAddress>> resolve_dns(const std::string& spec) {
  std::string rest = spec.substr(4);
  size_t colon = rest.rfind(':');
  if (colon == std::string::npos) {
    return Status::error("--workers " + spec + ": expected dns:NAME:PORT");
  }
  std::string name = rest.substr(0, colon);
  Result<int> port_or = parse_port(rest.substr(colon + 1), "--workers " + spec);
  if (!port_or) return port_or.status();
  const int port = port_or.value();
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  int rc = getaddrinfo(name.c_str(), nullptr, &hints, &res);
  if (rc != 0) {
    return Status::error("--workers " + spec + ": cannot resolve " + name + ": " +
                         gai_strerror(rc));
  }
  std::set<std::string> seen;
  std::vector<WorkerAddress> out;
  for (addrinfo* p = res; p; p = p->ai_next) {
    char buf[INET6_ADDRSTRLEN] = {};
    if (p->ai_family == AF_INET) {
      inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(p->ai_addr)->sin_addr, buf, sizeof buf);
    } else if (p->ai_family == AF_INET6) {
      inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(p->ai_addr)->sin6_addr, buf, sizeof buf);
    } else {
      continue;
    }
    // Appended piece by piece: `"[" + std::string&&` trips GCC 12's -Wrestrict at -O3 (a false
    // positive, GCC bug 105329).
    const bool v6 = p->ai_family == AF_INET6;
    std::string host;
    if (v6) host += '[';
    host += buf;
    if (v6) host += ']';
    if (seen.insert(host).second) out.push_back({host, port, ""});
  }
  freeaddrinfo(res);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.host < b.host; });
  return out;
}

}  // namespace

Result<std::vector<WorkerAddress>> resolve_workers(const std::string& spec) {
  if (spec.rfind("dns:", 0) == 0) return resolve_dns(spec);
  // The error_code form: a spec that cannot name a file (a component over NAME_MAX, as a long
  // inline list has) is a list, not a std::filesystem::filesystem_error.
  std::error_code ec;
  if (std::filesystem::is_regular_file(spec, ec)) return parse_hosts_file(spec);
  std::vector<WorkerAddress> out;
  size_t start = 0;
  while (start <= spec.size()) {
    size_t comma = spec.find(',', start);
    std::string item =
        spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!trim(item).empty()) {
      Result<WorkerAddress> a = parse_worker_line(item, "--workers");
      if (!a) return a.status();
      out.push_back(std::move(a).value());
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (out.empty()) {
    return Status::error("--workers \"" + spec +
                         "\": no workers (not a file, list or dns:NAME:PORT)");
  }
  return out;
}

}  // namespace fleet::session
