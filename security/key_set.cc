#include "fleet/security/key_set.h"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "fleet/security/certificate.h"

namespace fleet::security {

void KeySet::add(std::string public_z85, std::string origin) {
  keys_.emplace(std::move(public_z85), std::move(origin));
}

bool KeySet::contains(std::string_view public_z85) const {
  return keys_.find(public_z85) != keys_.end();
}

std::string KeySet::origin(std::string_view public_z85) const {
  auto it = keys_.find(public_z85);
  return it == keys_.end() ? std::string() : it->second;
}

Result<KeySet> load_authorized_keys(const std::string& path, const std::string& what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  KeySet set;
  if (!fs::is_directory(path, ec)) {
    auto cert = load_public_certificate(path, what);
    if (!cert) return cert.status();
    set.add(cert->public_z85, path);
    return set;
  }
  std::vector<fs::path> files;
  for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string file = it->path().filename().string();
    if (file.empty() || file.front() == '.') continue;  // editors' and kustomize's leftovers
    if (file.size() >= 7 && file.compare(file.size() - 7, 7, "_secret") == 0) continue;
    if (!it->is_regular_file(ec)) continue;
    files.push_back(it->path());
    if (files.size() > kMaxAuthorizedKeys) {
      return Status::error(what + " " + path + ": more than " + std::to_string(kMaxAuthorizedKeys) +
                           " files");
    }
  }
  if (ec) return Status::error(what + " " + path + ": cannot list: " + ec.message());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    auto cert = load_public_certificate(f.string(), what);
    if (!cert) return cert.status();
    set.add(cert->public_z85, f.string());
  }
  if (set.empty()) {
    return Status::error(what + " " + path +
                         ": no certificates in this directory (a worker would accept no one)");
  }
  return set;
}

}  // namespace fleet::security
