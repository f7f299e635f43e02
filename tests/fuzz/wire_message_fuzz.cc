// Untrusted input: one ZeroMQ message body from a peer, as the worker (worker_protocol.cc) and
// the coordinator (worker_link.cc, handshake.cc) receive it: wire::decode, then the message
// converted to the type its `t` names (every type either side accepts), and a DONE's result and
// a BATCH's data decoded further as their receivers do. ProtocolError (SharedTraceMismatch
// included) and DecodeError are expected; any crash, sanitizer report, other exception, leak,
// hang or out-of-memory is a bug.
#include <spdlog/spdlog.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fleet/trace/errors.h"
#include "fleet/trace/record.h"
#include "fleet/wire/batch.h"
#include "fleet/wire/node_result.h"
#include "fleet/wire/protocol.h"

namespace {

using namespace fleet::wire;

void on_batch(const Envelope& env) {
  auto b = env.as<Batch>();
  RawBatch raw = decode_batch(std::string_view(b.data.ptr, b.data.size), b.codec,
                              static_cast<uint64_t>(b.raw_bytes));
  SplitBatch frames = split_frames(raw, nullptr);
  for (std::string_view f : frames.frames) {  // BatchQueue::next
    fleet::trace::RecordView rec;
    fleet::trace::parse_record(reinterpret_cast<const uint8_t*>(f.data()), f.size(), rec, {},
                               /*defer_args_check=*/true);
  }
}

void convert(const Envelope& env) {
  switch (env.kind) {
    case MessageType::Hello:
      env.as<Hello>();
      break;
    case MessageType::Welcome:
      env.as<Welcome>();
      break;
    case MessageType::Ping:
      env.as<Ping>();
      break;
    case MessageType::Pong:
      env.as<Pong>();
      break;
    case MessageType::Start:
      env.as<Start>();
      break;
    case MessageType::Ready:
      env.as<Ready>();
      break;
    case MessageType::Go:
      env.as<Go>();
      break;
    case MessageType::Batch:
      on_batch(env);
      break;
    case MessageType::End:
      env.as<End>();
      break;
    case MessageType::Credit:
      env.as<Credit>();
      break;
    case MessageType::Progress:
      env.as<Progress>();
      break;
    case MessageType::Done: {
      auto d = env.as<Done>();
      decode_node_result(std::string_view(d.result.ptr, d.result.size));
      break;
    }
    case MessageType::DoneAck:
      env.as<DoneAck>();
      break;
    case MessageType::Heartbeat:
      env.as<Heartbeat>();
      break;
    case MessageType::Abort: {
      auto a = env.as<Abort>();
      abort_kind_from_name(a.kind);
      break;
    }
    case MessageType::Unknown:
      message_type_name(env.kind);
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    Envelope env = decode(data, size);
    convert(env);
  } catch (const ProtocolError&) {
  } catch (const fleet::trace::DecodeError&) {
  }
  return 0;
}
