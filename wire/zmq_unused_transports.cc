// The entry points of the transports and mechanism this project never uses, for a libzmq linked
// statically (CMakeLists.txt, FLEET_STATIC_ZMQ; docs/architecture.md, "How the binaries link").
//
// Debian's libzmq.a is built with Kerberos (GSSAPI mechanism) and NORM (a multicast transport);
// there is no static Kerberos, and a static NORM needs protokit, libxml2 and ICU. A fleet speaks
// TCP or IPC with the NULL or CURVE mechanism only: no socket of ours sets ZMQ_GSSAPI_*, and
// a worker refuses any other --listen transport before it binds
// (security::check_listen_transport). These definitions let the static link succeed without
// either library (with both shared, a worker took 6.8 ms to start instead of 3.9,
// docs/benchmarks.md, "Worker start-up and the static ZeroMQ link"). Each fails the way the real
// library reports it cannot serve (GSS_S_FAILURE, an invalid handle, false), so if libzmq ever
// reached one, the socket operation would fail with an error rather than misbehave.
#include <gssapi/gssapi.h>
#include <normApi.h>

namespace {
OM_uint32 gss_unavailable(OM_uint32* minor) {
  if (minor) *minor = 0;
  return GSS_S_FAILURE;
}
}  // namespace

extern "C" {

// GSSAPI (RFC 2744 C bindings).
gss_OID GSS_C_NT_HOSTBASED_SERVICE = GSS_C_NO_OID;
gss_OID GSS_C_NT_USER_NAME = GSS_C_NO_OID;

OM_uint32 gss_accept_sec_context(OM_uint32* minor, gss_ctx_id_t*, gss_cred_id_t, gss_buffer_t,
                                 gss_channel_bindings_t, gss_name_t*, gss_OID*, gss_buffer_t,
                                 OM_uint32*, OM_uint32*, gss_cred_id_t*) {
  return gss_unavailable(minor);
}
OM_uint32 gss_acquire_cred(OM_uint32* minor, gss_name_t, OM_uint32, gss_OID_set, gss_cred_usage_t,
                           gss_cred_id_t*, gss_OID_set*, OM_uint32*) {
  return gss_unavailable(minor);
}
OM_uint32 gss_delete_sec_context(OM_uint32* minor, gss_ctx_id_t*, gss_buffer_t) {
  return gss_unavailable(minor);
}
OM_uint32 gss_display_name(OM_uint32* minor, gss_name_t, gss_buffer_t, gss_OID*) {
  return gss_unavailable(minor);
}
OM_uint32 gss_import_name(OM_uint32* minor, gss_buffer_t, gss_OID, gss_name_t*) {
  return gss_unavailable(minor);
}
OM_uint32 gss_init_sec_context(OM_uint32* minor, gss_cred_id_t, gss_ctx_id_t*, gss_name_t, gss_OID,
                               OM_uint32, OM_uint32, gss_channel_bindings_t, gss_buffer_t, gss_OID*,
                               gss_buffer_t, OM_uint32*, OM_uint32*) {
  return gss_unavailable(minor);
}
OM_uint32 gss_release_buffer(OM_uint32* minor, gss_buffer_t) { return gss_unavailable(minor); }
OM_uint32 gss_release_cred(OM_uint32* minor, gss_cred_id_t*) { return gss_unavailable(minor); }
OM_uint32 gss_release_name(OM_uint32* minor, gss_name_t*) { return gss_unavailable(minor); }
OM_uint32 gss_unwrap(OM_uint32* minor, gss_ctx_id_t, gss_buffer_t, gss_buffer_t, int*, gss_qop_t*) {
  return gss_unavailable(minor);
}
OM_uint32 gss_wrap(OM_uint32* minor, gss_ctx_id_t, int, gss_qop_t, gss_buffer_t, int*,
                   gss_buffer_t) {
  return gss_unavailable(minor);
}

// NORM (normApi.h): no instance can be created, so nothing else is ever called with a handle.
const NormInstanceHandle NORM_INSTANCE_INVALID = nullptr;
const NormSessionHandle NORM_SESSION_INVALID = nullptr;
const NormObjectHandle NORM_OBJECT_INVALID = nullptr;
const NormNodeId NORM_NODE_ANY = 0xffffffff;

NormInstanceHandle NormCreateInstance(bool) { return NORM_INSTANCE_INVALID; }
NormSessionHandle NormCreateSession(NormInstanceHandle, const char*, UINT16, NormNodeId) {
  return NORM_SESSION_INVALID;
}
void NormDestroyInstance(NormInstanceHandle) {}
void NormDestroySession(NormSessionHandle) {}
NormDescriptor NormGetDescriptor(NormInstanceHandle) { return -1; }
bool NormGetNextEvent(NormInstanceHandle, NormEvent*, bool) { return false; }
NormSessionId NormGetRandomSessionId() { return 0; }
bool NormIsUnicastAddress(const char*) { return false; }
void NormNodeDelete(NormNodeHandle) {}
NormObjectType NormObjectGetType(NormObjectHandle) { return NORM_OBJECT_NONE; }
const void* NormObjectGetUserData(NormObjectHandle) { return nullptr; }
void NormObjectSetUserData(NormObjectHandle, const void*) {}
void NormSetCongestionControl(NormSessionHandle, bool, bool) {}
void NormSetDefaultSyncPolicy(NormSessionHandle, NormSyncPolicy) {}
void NormSetDefaultUnicastNack(NormSessionHandle, bool) {}
bool NormSetLoopback(NormSessionHandle, bool) { return false; }
bool NormSetMulticastInterface(NormSessionHandle, const char*) { return false; }
void NormSetRxPortReuse(NormSessionHandle, bool, const char*, const char*, UINT16) {}
bool NormSetTTL(NormSessionHandle, unsigned char) { return false; }
bool NormStartReceiver(NormSessionHandle, UINT32) { return false; }
bool NormStartSender(NormSessionHandle, NormSessionId, UINT32, UINT16, UINT16, UINT16, UINT8) {
  return false;
}
void NormStopInstance(NormInstanceHandle) {}
void NormStopReceiver(NormSessionHandle) {}
void NormStopSender(NormSessionHandle) {}
void NormStreamFlush(NormObjectHandle, bool, NormFlushMode) {}
NormObjectHandle NormStreamOpen(NormSessionHandle, UINT32, const char*, unsigned int) {
  return NORM_OBJECT_INVALID;
}
bool NormStreamRead(NormObjectHandle, char*, unsigned int*) { return false; }
bool NormStreamSeekMsgStart(NormObjectHandle) { return false; }
unsigned int NormStreamWrite(NormObjectHandle, const char*, unsigned int) { return 0; }

}  // extern "C"
