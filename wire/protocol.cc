#include "fleet/wire/protocol.h"

#include <utility>

#include "fleet/trace/errors.h"
#include "fleet/trace/msgpack_reader.h"

namespace fleet::wire {

namespace {
constexpr std::pair<MessageType, std::string_view> kMessageNames[] = {
    {MessageType::Hello, "hello"},
    {MessageType::Welcome, "welcome"},
    {MessageType::Ping, "ping"},
    {MessageType::Pong, "pong"},
    {MessageType::Start, "start"},
    {MessageType::Batch, "batch"},
    {MessageType::End, "end"},
    {MessageType::Credit, "credit"},
    {MessageType::Progress, "progress"},
    {MessageType::Done, "done"},
    {MessageType::DoneAck, "done_ack"},
    {MessageType::Heartbeat, "heartbeat"},
    {MessageType::Abort, "abort"},
    {MessageType::Ready, "ready"},
    {MessageType::Go, "go"},
};
}  // namespace

MessageType message_type_from_name(std::string_view t) {
  for (const auto& [type, name] : kMessageNames)
    if (name == t) return type;
  return MessageType::Unknown;
}

AbortKind abort_kind_from_name(std::string_view kind) {
  if (kind == "config") return AbortKind::Config;
  if (kind == "trace") return AbortKind::Trace;
  if (kind == "protocol") return AbortKind::Protocol;
  if (kind == "policy") return AbortKind::Policy;
  return AbortKind::None;
}

std::string_view abort_kind_name(AbortKind kind) {
  switch (kind) {
    case AbortKind::Config:
      return "config";
    case AbortKind::Trace:
      return "trace";
    case AbortKind::Protocol:
      return "protocol";
    case AbortKind::Policy:
      return "policy";
    case AbortKind::None:
      break;
  }
  return "";
}

std::string_view message_type_name(MessageType type) {
  for (const auto& [known, name] : kMessageNames)
    if (known == type) return name;
  return "?";
}

namespace {

constexpr size_t kMaxSmallMessageBytes = 16u << 20;  // any type but done, batch and start

// The message's "t" from its first few keys (every message leads with v and t), without
// unpacking it: "" when it is not there.
std::string peek_type(const void* data, size_t size) {
  try {
    trace::MsgpackReader r(static_cast<const uint8_t*>(data), size);
    const uint32_t n = r.read_map_header();
    for (uint32_t i = 0; i < n && i < 4; ++i) {
      if (r.peek() != trace::MsgType::Str) return "";
      const std::string_view key = r.read_str();
      if (key == "t") return r.peek() == trace::MsgType::Str ? std::string(r.read_str()) : "";
      r.skip();
    }
  } catch (const trace::DecodeError&) {
  }
  return "";
}

}  // namespace

Envelope decode(const void* data, size_t size) {
  if (size > kMaxMessageBytes) {
    throw ProtocolError("message of " + std::to_string(size) + " bytes exceeds the limit of " +
                        std::to_string(kMaxMessageBytes));
  }
  // Unpacked, every msgpack element is a 24-byte object: a 256-MiB message of one-byte elements
  // would be 6 GiB. Only a DONE, a BATCH and a START are ever large, and their bulk is bytes (a
  // DONE's result, a batch's records) or strings; any other message is refused past 16 MiB.
  if (size > kMaxSmallMessageBytes) {
    const std::string type = peek_type(data, size);
    if (type != "done" && type != "batch" && type != "start")
      throw ProtocolError("a \"" + type.substr(0, 20) + "\" message of " + std::to_string(size) +
                          " bytes (only done, batch and start may pass " +
                          std::to_string(kMaxSmallMessageBytes) + ")");
  }
  Envelope env;
  try {
    // array, map, str, bin, ext element limits and nesting depth bound what a peer can make us
    // allocate. msgpack-c allocates a declared array before its elements arrive, so 5 bytes
    // declaring 2^24 elements cost 400 MB; no message has a large array (bulk data travels as
    // bytes), hence the small array limit.
    msgpack::unpack_limit limit(1u << 16, 4096, kMaxMessageBytes, kMaxMessageBytes, 0, 16);
    // bin fields (a batch's records, a DONE's result: nearly all the bytes) stay views into
    // `data` instead of copies: a copy of a DONE is megabytes of freshly faulted pages.
    auto view_bins = [](msgpack::type::object_type type, std::size_t, void*) {
      return type == msgpack::type::BIN;
    };
    env.handle = msgpack::unpack(static_cast<const char*>(data), size, view_bins, nullptr, limit);
  } catch (const std::exception& e) {
    throw ProtocolError(std::string("undecodable message: ") + e.what());
  }
  const msgpack::object& obj = env.handle.get();
  if (obj.type != msgpack::type::MAP) throw ProtocolError("message is not a msgpack map");
  bool has_v = false, has_t = false;
  for (uint32_t i = 0; i < obj.via.map.size; ++i) {
    const auto& kv = obj.via.map.ptr[i];
    if (kv.key.type != msgpack::type::STR) continue;
    std::string_view key(kv.key.via.str.ptr, kv.key.via.str.size);
    if (key == "v" && kv.val.type == msgpack::type::POSITIVE_INTEGER) {
      env.version =
          static_cast<int>(kv.val.via.u64 > 1000000 ? -1 : static_cast<int64_t>(kv.val.via.u64));
      has_v = true;
    } else if (key == "t" && kv.val.type == msgpack::type::STR) {
      env.type.assign(kv.val.via.str.ptr, kv.val.via.str.size);
      env.kind = message_type_from_name(env.type);
      has_t = true;
    }
  }
  if (!has_v || !has_t)
    throw ProtocolError("message lacks its protocol version \"v\" or type \"t\"");
  return env;
}

}  // namespace fleet::wire
