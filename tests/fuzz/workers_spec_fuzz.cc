// Untrusted input: a --workers value (resolve_workers): "dns:NAME:PORT", an inline
// "host:port,host:port" list, or a path. The resolver is replaced by a deterministic fake below
// (no network, no /etc lookups): the spec's parsing and the handling of whatever the resolver
// returns are under test, not the system's DNS. std::invalid_argument is the one expected
// exception; any crash, sanitizer report, other exception, leak or hang is a bug.
#include <arpa/inet.h>
#include <netdb.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "fleet/coordinator/session/worker_addresses.h"

namespace {

// A few IPv4 and IPv6 answers (some repeated: resolve_workers must deduplicate) chosen by the
// name's bytes; names holding '!' do not resolve.
addrinfo* fake_answers(const char* name) {
  uint32_t h = 2166136261u;
  for (const char* p = name; *p; ++p) h = (h ^ static_cast<uint8_t>(*p)) * 16777619u;
  addrinfo* head = nullptr;
  const int n = 1 + static_cast<int>(h % 5);
  for (int i = 0; i < n; ++i) {
    auto* ai = static_cast<addrinfo*>(std::calloc(1, sizeof(addrinfo)));
    const bool v6 = (h >> (i + 3)) & 1;
    const int k = static_cast<int>((h >> (2 * i)) % 3);  // repeats across answers
    if (v6) {
      auto* sa = static_cast<sockaddr_in6*>(std::calloc(1, sizeof(sockaddr_in6)));
      sa->sin6_family = AF_INET6;
      sa->sin6_addr.s6_addr[15] = static_cast<uint8_t>(k + 1);
      ai->ai_family = AF_INET6;
      ai->ai_addrlen = sizeof(sockaddr_in6);
      ai->ai_addr = reinterpret_cast<sockaddr*>(sa);
    } else {
      auto* sa = static_cast<sockaddr_in*>(std::calloc(1, sizeof(sockaddr_in)));
      sa->sin_family = AF_INET;
      sa->sin_addr.s_addr = htonl(0x0a000001u + static_cast<uint32_t>(k));
      ai->ai_family = AF_INET;
      ai->ai_addrlen = sizeof(sockaddr_in);
      ai->ai_addr = reinterpret_cast<sockaddr*>(sa);
    }
    ai->ai_socktype = SOCK_STREAM;
    ai->ai_next = head;
    head = ai;
  }
  return head;
}

}  // namespace

// Interposes libc's resolver for this binary (ASan's own interceptors are weak).
extern "C" int getaddrinfo(const char* node, const char*, const addrinfo*, addrinfo** res) {
  if (!node || std::strchr(node, '!')) return EAI_NONAME;
  *res = fake_answers(node);
  return 0;
}

extern "C" void freeaddrinfo(addrinfo* ai) {
  while (ai) {
    addrinfo* next = ai->ai_next;
    std::free(ai->ai_addr);
    std::free(ai);
    ai = next;
  }
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string spec(reinterpret_cast<const char*>(data), size);
  // A spec naming an existing file is read as a hosts file: hosts_file_fuzz's input, and
  // reading whatever file the fuzzer names would make runs irreproducible.
  std::error_code ec;
  if (spec.find('\0') == std::string::npos && std::filesystem::exists(spec, ec)) return 0;
  if (auto workers = fleet::session::resolve_workers(spec)) {
    for (const auto& w : workers.value()) (void)w.name();
  }
  return 0;
}
