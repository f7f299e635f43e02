// Protected mode, as Redis has it: a worker without a CURVE key serves only its own host. It
// binds a loopback address (or an ipc:// path) unless the operator says --insecure.
#pragma once

#include <string>

#include "fleet/util/status.h"

namespace fleet::security {

// True for 127.0.0.0/8, ::1, ::ffff:127.x and "localhost" (brackets allowed).
bool is_loopback_host(const std::string& host);
// The host of a "tcp://HOST:PORT" endpoint ("" for other transports).
std::string endpoint_host(const std::string& endpoint);

// Ok for tcp:// and ipc://, the transports a fleet speaks; anything else (inproc, pgm, epgm,
// norm, vmci, udp) is refused by name before the worker binds. With libzmq linked statically,
// NORM and Kerberos are stubs that fail (wire/zmq_unused_transports.cc).
Status check_listen_transport(const std::string& listen);

// Ok for a keyed worker, a loopback or ipc:// endpoint, or --insecure; otherwise the error
// naming the flag to add.
Status check_protected_mode(const std::string& listen, bool has_curve, bool insecure);

}  // namespace fleet::security
