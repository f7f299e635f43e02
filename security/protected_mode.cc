#include "fleet/security/protected_mode.h"

#include <arpa/inet.h>

namespace fleet::security {

bool is_loopback_host(const std::string& host) {
  std::string h = host;
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  if (h == "localhost") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, h.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, h.c_str(), &v6) != 1) return false;
  if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
  return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
}

std::string endpoint_host(const std::string& endpoint) {
  const std::string scheme = "tcp://";
  if (endpoint.rfind(scheme, 0) != 0) return "";
  const std::string rest = endpoint.substr(scheme.size());
  const size_t colon = rest.rfind(':');
  return colon == std::string::npos ? rest : rest.substr(0, colon);
}

Status check_listen_transport(const std::string& listen) {
  if (listen.rfind("tcp://", 0) == 0 || listen.rfind("ipc://", 0) == 0) return Status();
  return Status::error("--listen " + listen +
                       ": a worker listens on tcp://HOST:PORT or ipc://PATH only");
}

Status check_protected_mode(const std::string& listen, bool has_curve, bool insecure) {
  if (has_curve || insecure) return Status();
  // A path's file permissions guard it; an abstract socket (ipc://@name) has none.
  if (listen.rfind("ipc://", 0) == 0 && listen.rfind("ipc://@", 0) != 0) return Status();
  if (listen.rfind("tcp://", 0) == 0 && is_loopback_host(endpoint_host(listen))) return Status();
  return Status::error("--listen " + listen +
                       ": protected mode: without --curve-cert (and --authorized-keys) a worker "
                       "only listens on loopback, since anyone who reaches the port could "
                       "drive it; give it a key (worker keygen NAME, docs/security.md), or "
                       "add --insecure on a network you fully trust");
}

}  // namespace fleet::security
