#include "fleet/security/certificate.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <vector>

#include "fleet/security/private_file.h"

namespace fleet::security {

namespace {

constexpr size_t kMaxLine = 1024;
constexpr size_t kMaxLines = 4096;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// A ZPL value: "quoted", 'quoted' or bare.
std::string unquote(std::string_view v) {
  v = trim(v);
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) {
    v = v.substr(1, v.size() - 2);
  }
  return std::string(v);
}

// ZPL nests by indentation, four spaces a level (CZMQ's zconfig).
size_t indent_level(std::string_view line) {
  size_t spaces = 0;
  while (spaces < line.size() && line[spaces] == ' ') ++spaces;
  return spaces / 4;
}

std::string header(const char* kind) {
  char date[32] = {};
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S", &tm);
  return std::string("#   ****  Generated on ") + date + " by Fleet Replay (CZMQ format)  ****\n" +
         "#   ZeroMQ CURVE " + kind + " Certificate\n";
}

std::string body(const Certificate& c, bool with_secret) {
  std::string s = "\nmetadata\n";
  if (!c.name.empty()) s += "    name = \"" + c.name + "\"\n";
  s += "curve\n    public-key = \"" + c.public_z85 + "\"\n";
  if (with_secret) s += "    secret-key = \"" + c.secret_z85 + "\"\n";
  return s;
}

Status write_file(const std::string& path, const std::string& text, mode_t mode, bool force) {
  const int flags = O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | (force ? O_TRUNC : O_EXCL);
  const int fd = ::open(path.c_str(), flags, mode);
  if (fd < 0) {
    if (errno == EEXIST) {
      return Status::error(path + ": already exists (keygen --force replaces it)");
    }
    return Status::error(path + ": cannot create: " + std::strerror(errno));
  }
  // An existing file keeps its mode through O_TRUNC: set it, before writing a secret.
  const bool ok_mode = fchmod(fd, mode) == 0;
  const ssize_t n = ::write(fd, text.data(), text.size());
  const bool ok_close = ::close(fd) == 0;
  if (!ok_mode || n != static_cast<ssize_t>(text.size()) || !ok_close) {
    return Status::error(path + ": cannot write: " + std::strerror(errno));
  }
  return Status();
}

}  // namespace

Result<Certificate> parse_certificate(std::string_view text, const std::string& where) {
  Certificate c;
  std::string section;  // the level-0 section the current line belongs to
  size_t line_no = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view raw = text.substr(start, end - start);
    start = end + 1;
    ++line_no;
    const std::string at = where + ":" + std::to_string(line_no);
    if (line_no > kMaxLines) return Status::error(where + ": more than 4096 lines");
    if (raw.size() > kMaxLine) return Status::error(at + ": line longer than 1024 characters");
    std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#') continue;
    const size_t level = indent_level(raw);
    const size_t eq = line.find('=');
    if (level == 0) {
      if (eq != std::string_view::npos) {
        return Status::error(at + ": expected a section name (metadata, curve)");
      }
      section = std::string(line);
      continue;
    }
    if (eq == std::string_view::npos) continue;  // a deeper section: not ours
    const std::string name(trim(line.substr(0, eq)));
    const std::string value = unquote(line.substr(eq + 1));
    if (section == "metadata" && name == "name") c.name = value;
    if (section != "curve") continue;
    if (name == "public-key") c.public_z85 = value;
    if (name == "secret-key") c.secret_z85 = value;
  }
  if (c.public_z85.empty()) return Status::error(where + ": no curve/public-key");
  if (!is_z85_key(c.public_z85)) {
    return Status::error(where + ": curve/public-key is not a 40-character Z85 key");
  }
  if (!c.secret_z85.empty()) {
    const std::string derived = public_key_of(c.secret_z85);
    if (derived.empty()) {
      return Status::error(where + ": curve/secret-key is not a 40-character Z85 key");
    }
    if (derived != c.public_z85) {
      return Status::error(where + ": curve/secret-key does not belong to its public-key");
    }
  }
  return c;
}

Result<Certificate> load_secret_certificate(const std::string& path, const std::string& what) {
  if (!curve_available()) return curve_unavailable(what);
  auto text = read_private_file(path, what);
  if (!text) return text.status();
  auto cert = parse_certificate(text.value(), what + " " + path);
  if (!cert) return cert.status();
  if (cert->secret_z85.empty()) {
    return Status::error(what + " " + path +
                         ": a public certificate; give the secret one (NAME.key_secret)");
  }
  return cert;
}

Result<Certificate> load_public_certificate(const std::string& path, const std::string& what) {
  auto text = read_small_file(path, what);
  if (!text) return text.status();
  auto cert = parse_certificate(text.value(), what + " " + path);
  if (!cert) return cert.status();
  cert->secret_z85.clear();  // only ever the public half
  return cert;
}

std::string format_public_certificate(const Certificate& cert) {
  return header("Public") +
         "#   Exchange securely, or use a secure mechanism to verify the contents\n"
         "#   of this file after exchange.\n" +
         body(cert, false);
}

std::string format_secret_certificate(const Certificate& cert) {
  return header("**Secret**") +
         "#   DO NOT PROVIDE THIS FILE TO OTHER USERS nor change its permissions.\n" +
         body(cert, true);
}

Status write_certificate_pair(const std::string& dir, const std::string& name,
                              const CurveKeyPair& keys, bool force) {
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") {
    return Status::error("keygen: NAME \"" + name + "\" must be a plain file name");
  }
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return Status::error("keygen --dir " + dir + ": not a directory");
  }
  Certificate c{name, keys.public_z85, keys.secret_z85};
  const std::string base = (std::filesystem::path(dir) / name).string();
  if (!force) {  // all or nothing: never half a pair next to an old half
    for (const char* ext : {".key", ".key_secret"}) {
      if (std::filesystem::exists(std::filesystem::symlink_status(base + ext, ec))) {
        return Status::error(base + ext + ": already exists (keygen --force replaces it)");
      }
    }
  }
  if (Status s = write_file(base + ".key_secret", format_secret_certificate(c), 0600, force); !s) {
    return s;
  }
  return write_file(base + ".key", format_public_certificate(c), 0644, force);
}

}  // namespace fleet::security
