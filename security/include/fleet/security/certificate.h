// CURVE certificates in CZMQ's text format (zcert_save: ZPL with a `metadata` and a `curve`
// section), so keys made by `worker keygen` work with ZeroMQ tooling and the other way round:
//
//   metadata
//       name = "coordinator"
//   curve
//       public-key = "<40 characters of Z85>"
//       secret-key = "<40 characters of Z85>"      (only in NAME.key_secret)
//
// A secret certificate is read only when no one but its owner can read it (private_file.h).
#pragma once

#include <string>
#include <string_view>

#include "fleet/security/curve_key.h"
#include "fleet/util/status.h"

namespace fleet::security {

struct Certificate {
  std::string name;        // metadata/name ("" when absent)
  std::string public_z85;  // curve/public-key
  std::string secret_z85;  // curve/secret-key ("" in a public certificate)
  CurveKeyPair key_pair() const { return {public_z85, secret_z85}; }
};

// Parses certificate text; errors name `where` and the line. A secret key must belong to the
// public key beside it.
Result<Certificate> parse_certificate(std::string_view text, const std::string& where);
// `what FILE`: a secret certificate (private file, both keys present).
Result<Certificate> load_secret_certificate(const std::string& path, const std::string& what);
// `what FILE`: any certificate; only its public key is used.
Result<Certificate> load_public_certificate(const std::string& path, const std::string& what);

std::string format_public_certificate(const Certificate& cert);
std::string format_secret_certificate(const Certificate& cert);

// `worker keygen NAME`: DIR/NAME.key (0644) and DIR/NAME.key_secret (0600, created so; never
// world-readable even for an instant). Refuses to replace existing files unless `force`.
Status write_certificate_pair(const std::string& dir, const std::string& name,
                              const CurveKeyPair& keys, bool force);

}  // namespace fleet::security
