// The workers' CURVE public keys a coordinator trusts (--known-workers PATH), as ssh's
// known_hosts: one `HOST:PORT key=<Z85>` per line, or `* key=<Z85>` for every worker that has
// no line of its own (replicas found through dns:NAME:PORT that share one key); # comments.
// A key on a worker's hosts-file line wins over this file.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "fleet/coordinator/session/worker_addresses.h"
#include "fleet/security/curve_key.h"
#include "fleet/util/status.h"

namespace fleet::session {

class KnownWorkers {
 public:
  static Result<KnownWorkers> load(const std::string& path);
  // The key for "host:port" (WorkerAddress::name()), the `*` key, or "".
  std::string key_for(const std::string& host_port) const;

 private:
  std::map<std::string, std::string> keys_;
  std::string any_;
};

// Gives every address its key (its own, then `known`'s). With a coordinator key
// (`curve`), a worker without one is an error naming it and both places a key can go; without,
// any key given is an error (keys need --curve-cert).
Status assign_worker_keys(std::vector<WorkerAddress>& addresses, const KnownWorkers* known,
                          bool curve);

}  // namespace fleet::session
