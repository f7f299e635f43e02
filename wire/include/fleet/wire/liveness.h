// Liveness rules both sides share (docs/protocol.md § heartbeats): a heartbeat every
// kHeartbeatMs each way, and a peer silent for kLostAfterHeartbeats intervals is lost.
#pragma once

namespace fleet::wire {

inline constexpr int kHeartbeatMs = 500;
inline constexpr int kLostAfterHeartbeats = 3;

}  // namespace fleet::wire
