// The coordinator keys a worker accepts (--authorized-keys): SSH's authorized_keys for CURVE.
// PATH is one certificate, or a directory whose every regular file is one (files ending in
// `_secret` are skipped: a directory of key pairs can be pointed at as it is).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>

#include "fleet/util/status.h"

namespace fleet::security {

class KeySet {
 public:
  void add(std::string public_z85, std::string origin);
  bool contains(std::string_view public_z85) const;
  // Where a key came from (the certificate's file), "" when it is not in the set.
  std::string origin(std::string_view public_z85) const;
  size_t size() const { return keys_.size(); }
  bool empty() const { return keys_.empty(); }

 private:
  std::map<std::string, std::string, std::less<>> keys_;  // key -> origin
};

inline constexpr size_t kMaxAuthorizedKeys = 4096;

// Errors name the flag, the file and why; an empty directory is an error too (a worker that
// accepts no one is a misconfiguration, not a policy).
Result<KeySet> load_authorized_keys(const std::string& path,
                                    const std::string& what = "--authorized-keys");

}  // namespace fleet::security
