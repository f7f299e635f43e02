#include "fleet/security/curve_key.h"

#include <zmq.h>

#include <cstdint>

#include "fleet/util/sha256.h"

namespace fleet::security {

bool curve_available() { return zmq_has("curve") != 0; }

Status curve_unavailable(const std::string& flag) {
  return Status::error(flag +
                       ": this libzmq has no CURVE support (it was built without libsodium); "
                       "install Debian's libzmq5, which has it");
}

CurveKeyPair generate_key_pair() {
  char pub[41] = {};
  char sec[41] = {};
  zmq_curve_keypair(pub, sec);
  return {pub, sec};
}

bool is_z85_key(std::string_view z85) {
  if (z85.size() != 40) return false;
  const std::string text(z85);
  uint8_t raw[32];
  return zmq_z85_decode(raw, text.c_str()) != nullptr;
}

std::string public_key_of(std::string_view secret_z85) {
  if (!is_z85_key(secret_z85)) return "";
  const std::string sec(secret_z85);
  char pub[41] = {};
  if (zmq_curve_public(pub, sec.c_str()) != 0) return "";
  return pub;
}

std::string fingerprint(std::string_view public_z85) {
  if (!is_z85_key(public_z85)) return "sha256:?";
  const std::string text(public_z85);
  uint8_t raw[32];
  zmq_z85_decode(raw, text.c_str());
  return "sha256:" +
         util::sha256_hex(std::string_view(reinterpret_cast<const char*>(raw), 32)).substr(0, 16);
}

std::string z85_of_bytes(std::string_view raw32) {
  if (raw32.size() != 32) return "";
  char out[41] = {};
  zmq_z85_encode(out, reinterpret_cast<const uint8_t*>(raw32.data()), 32);
  return out;
}

}  // namespace fleet::security
