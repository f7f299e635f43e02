#include "fleet_keys.h"

#include <spdlog/spdlog.h>

#include "fleet/security/certificate.h"
#include "fleet/security/curve_key.h"

namespace fleet::session {

Status load_fleet_keys(const FleetOptions& o, std::vector<WorkerAddress>& addresses,
                       std::optional<security::CurveKeyPair>& curve) {
  if (!o.curve_cert_path.empty()) {
    auto cert = security::load_secret_certificate(o.curve_cert_path, "--curve-cert");
    if (!cert) return cert.status();
    curve = cert->key_pair();
  } else if (o.local > 0 && !o.insecure) {
    if (!security::curve_available()) return security::curve_unavailable("--local");
    curve = security::generate_key_pair();
  }
  if (o.local > 0) return Status();  // the workers announce their keys when they start
  std::optional<KnownWorkers> known;
  if (!o.known_workers_path.empty()) {
    auto loaded = KnownWorkers::load(o.known_workers_path);
    if (!loaded) return loaded.status();
    known = std::move(loaded.value());
  }
  if (Status s = assign_worker_keys(addresses, known ? &*known : nullptr, curve.has_value()); !s) {
    return s;
  }
  for (const auto& a : addresses) {
    if (!curve && !is_loopback_host(a.host) && !o.insecure) {
      spdlog::warn(
          "worker {}: plaintext (no CURVE): anyone on the path can read the trace and pose as "
          "this worker; give --curve-cert and the worker's key (docs/security.md)",
          a.name());
    }
  }
  return Status();
}

}  // namespace fleet::session
