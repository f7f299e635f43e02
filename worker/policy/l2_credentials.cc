#include "fleet/worker/l2_credentials.h"

#include <cstdlib>

#include "fleet/security/private_file.h"

namespace fleet::policy {

namespace {

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

}  // namespace

Result<L2Credentials> read_l2_secret_file(const std::string& path) {
  const std::string flag = "--l2-secret-file";
  Result<std::string> text = security::read_private_file(path, flag);
  if (!text) return text.status();
  const std::string where = flag + " " + path;
  L2Credentials creds;
  bool have_user = false, have_password = false;
  size_t begin = 0;
  for (int line_no = 1; begin <= text->size(); ++line_no) {
    size_t end = text->find('\n', begin);
    if (end == std::string::npos) end = text->size();
    const std::string line = trim(text->substr(begin, end - begin));
    begin = end + 1;
    if (line.empty() || line[0] == '#') continue;
    // Errors quote neither the line nor its key: either could be the secret itself, mistyped.
    const std::string at = where + ": line " + std::to_string(line_no);
    const size_t eq = line.find('=');
    if (eq == std::string::npos)
      return Status::error(at + ": expected key=value (password=... or username=...)");
    const std::string key = trim(line.substr(0, eq));
    const std::string value = trim(line.substr(eq + 1));
    bool* seen = nullptr;
    std::string* slot = nullptr;
    if (key == "password") {
      seen = &have_password;
      slot = &creds.password;
    } else if (key == "username") {
      seen = &have_user;
      slot = &creds.username;
    } else {
      return Status::error(at + ": unknown key (expected password= or username=)");
    }
    if (*seen) return Status::error(at + ": " + key + " given twice");
    if (value.empty()) return Status::error(at + ": " + key + " is empty");
    *seen = true;
    *slot = value;
  }
  if (!have_password) return Status::error(where + ": no password= line");
  return creds;
}

void apply_l2_credentials(const L2Credentials& creds) {
  if (!creds.username.empty()) ::setenv("LMCACHE_RESP_USERNAME", creds.username.c_str(), 1);
  if (!creds.password.empty()) ::setenv("LMCACHE_RESP_PASSWORD", creds.password.c_str(), 1);
}

}  // namespace fleet::policy
