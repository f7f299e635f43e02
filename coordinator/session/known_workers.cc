#include "fleet/coordinator/session/known_workers.h"

#include <spdlog/spdlog.h>

#include <sstream>
#include <stdexcept>

#include "fleet/security/certificate.h"
#include "fleet/security/curve_key.h"
#include "fleet/security/private_file.h"

namespace fleet::session {

namespace {
constexpr size_t kMaxKnownWorkersBytes = 4u << 20;  // ~50k lines
}

Result<KnownWorkers> KnownWorkers::load(const std::string& path) {
  auto text = security::read_small_file(path, "--known-workers", kMaxKnownWorkersBytes);
  if (!text) return text.status();
  KnownWorkers known;
  std::istringstream in(text.value());
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    const std::string where = "--known-workers " + path + ":" + std::to_string(n);
    std::istringstream words(strip_comment(line));
    std::string who;
    std::string key;
    std::string extra;
    if (!(words >> who)) continue;
    if (!(words >> key) || key.rfind("key=", 0) != 0 || (words >> extra)) {
      return Status::error(where + ": expected HOST:PORT key=<Z85> or * key=<Z85>");
    }
    key = key.substr(4);
    if (!security::is_z85_key(key)) {
      return Status::error(where + ": key= is not a 40-character Z85 CURVE public key");
    }
    if (who == "*") {
      known.any_ = key;
      continue;
    }
    Result<WorkerAddress> address = parse_host_port(who, where);
    if (!address) return address.status();
    known.keys_[address->name()] = key;
  }
  return known;
}

std::string KnownWorkers::key_for(const std::string& host_port) const {
  auto it = keys_.find(host_port);
  return it != keys_.end() ? it->second : any_;
}

Status assign_worker_keys(std::vector<WorkerAddress>& addresses, const KnownWorkers* known,
                          bool curve) {
  for (auto& a : addresses) {
    if (a.server_key.empty() && known) a.server_key = known->key_for(a.name());
    if (curve && a.server_key.empty()) {
      return Status::error("worker " + a.name() +
                           ": no CURVE public key for it: add key=<Z85> to its line in the hosts "
                           "file, or list it in --known-workers (docs/security.md)");
    }
    if (!curve && !a.server_key.empty()) {
      return Status::error("worker " + a.name() +
                           ": a CURVE key is given for it but the coordinator has no key of its "
                           "own: add --curve-cert FILE");
    }
  }
  return Status();
}

}  // namespace fleet::session
