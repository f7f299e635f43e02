// CURVE keys (CurveZMQ: Curve25519) as ZeroMQ spells them: 40 characters of Z85 for 32 bytes.
// A key's fingerprint is what logs and messages show instead of the key: "sha256:" and the
// first 16 hex digits of the SHA-256 of its 32 bytes.
#pragma once

#include <string>
#include <string_view>

#include "fleet/util/status.h"

namespace fleet::security {

struct CurveKeyPair {
  std::string public_z85;  // 40 characters
  std::string secret_z85;  // 40 characters; never logged
};

// True when this libzmq was built with CURVE (through libsodium); Debian's is.
bool curve_available();
// The error every CURVE entry point gives when curve_available() is false, naming `flag`.
Status curve_unavailable(const std::string& flag);

CurveKeyPair generate_key_pair();  // requires curve_available()
bool is_z85_key(std::string_view z85);
// The public key that belongs to `secret_z85`, or "" when it is not a key.
std::string public_key_of(std::string_view secret_z85);
std::string fingerprint(std::string_view public_z85);
// Raw 32 bytes (a ZAP request's credential) as Z85.
std::string z85_of_bytes(std::string_view raw32);

}  // namespace fleet::security
