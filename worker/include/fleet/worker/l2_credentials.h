// The L2 credentials of a worker (issue 15): a run never carries them (host_policy.h refuses a
// resp adapter with a username or password); the worker operator gives them in a private file,
// and the worker's resp adapters authenticate with them.
#pragma once

#include <string>

#include "fleet/util/status.h"

namespace fleet::policy {

struct L2Credentials {
  std::string username;  // "" = Redis's default user
  std::string password;
  bool empty() const { return username.empty() && password.empty(); }
};

// --l2-secret-file FILE: a private file (security::read_private_file refuses one that group or
// others may read, naming its mode; at most 64 KiB) of `password=...` and an optional
// `username=...` line. `#` comments and blank lines are skipped, whitespace around keys and
// values is trimmed. A line without '=', an unknown or repeated key, or no password is an error
// naming the file and the line number; no message ever contains the secret.
Result<L2Credentials> read_l2_secret_file(const std::string& path);

// Makes the worker's resp adapters authenticate with them: sets LMCACHE_RESP_PASSWORD and, when
// the file names a user, LMCACHE_RESP_USERNAME in this process's environment (the adapter reads
// those, as LMCache's does; this keeps the secret out of the engine config and its digest).
// Call it before any thread starts (setenv is not thread-safe); empty credentials change nothing.
void apply_l2_credentials(const L2Credentials& creds);

}  // namespace fleet::policy
