// Record batches on the wire: record frames exactly as in a `.lct` file (u32 BE length +
// msgpack body), concatenated, then zstd-compressed or sent as they are (codec "none": on
// loopback compression only burns CPU on both ends). The coordinator fills one per worker
// until ~1k records or ~256 KiB; the worker decodes (bounded) and walks the frames.
// When the worker maps the same trace file (trace/shared_trace.h), an unmodified record
// travels as a 16-byte reference instead: u32 BE 0xFFFFFFFF (never a valid frame length),
// u64 BE offset of the frame in the trace, u32 BE body length. A part of a call that key
// sharding split travels as a masked reference (protocol 6): u32 BE 0xFFFFFFFE, the same
// offset and length, u16 BE the record's key count K, then ceil(K/8) bytes with bit i (byte
// i/8, bit i%8) set for each key the worker keeps; the worker decodes the record and drops the
// other keys. References and frames mix freely; re-encoded sub-calls travel inline to workers
// that do not read the trace.
#pragma once

#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fleet/wire/protocol.h"

struct ZSTD_CCtx_s;

namespace fleet::trace {
class SharedTrace;
}

namespace fleet::wire {

// Leaves new elements uninitialised: a decompressed batch is overwritten at once, and zeroing
// ~256 KiB per batch first showed up as a tenth of the coordinator's and workers' time.
template <class T>
struct NoInitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = NoInitAllocator<U>;
  };
  NoInitAllocator() = default;
  template <class U>
  NoInitAllocator(const NoInitAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
using RawBatch = std::vector<uint8_t, NoInitAllocator<uint8_t>>;

inline constexpr size_t kBatchMaxRecords = 1024;
inline constexpr uint32_t kRefMarker = 0xFFFFFFFFu;  // length prefix that announces a reference
inline constexpr uint32_t kMaskedRefMarker = 0xFFFFFFFEu;  // ... a reference with a key mask
inline constexpr size_t kMaxMaskedKeys = 0xFFFF;

// A record reference does not match the worker's copy of the trace: the run cannot go on.
class SharedTraceMismatch : public ProtocolError {
 public:
  using ProtocolError::ProtocolError;
};

enum class BatchCodec : uint8_t { Zstd, None };
std::string_view codec_name(BatchCodec c);  // "zstd" | "none": the Batch message's `codec`
std::optional<BatchCodec> parse_codec(std::string_view name);
inline constexpr size_t kBatchMaxBytes = 256u << 10;

class BatchBuilder {
 public:
  void add(std::string_view body);  // one record frame body
  // One record by reference: its frame's offset in the shared trace and its body length.
  void add_ref(uint64_t frame_offset, uint32_t body_size);
  // One part of a split call by reference: `mask` holds ceil(keys/8) bytes (see above).
  void add_masked_ref(uint64_t frame_offset, uint32_t body_size, std::string_view mask,
                      uint16_t keys);
  bool full() const { return records_ >= kBatchMaxRecords || raw_.size() >= kBatchMaxBytes; }
  bool empty() const { return records_ == 0; }
  size_t records() const { return records_; }
  size_t raw_bytes() const { return raw_.size(); }
  // Encodes with `codec` (zstd at `level`; negative levels are zstd's fast modes) and resets
  // the builder. The view stays valid until the next call: the builder reuses one compression
  // context and two buffers for every batch.
  std::string_view finish(BatchCodec codec, int level = 1);
  std::string_view finish_compressed(int level = 1) { return finish(BatchCodec::Zstd, level); }

 private:
  struct FreeCCtx {
    void operator()(ZSTD_CCtx_s* c) const;
  };
  std::string raw_;
  std::string zbuf_;
  std::unique_ptr<ZSTD_CCtx_s, FreeCCtx> cctx_;
  size_t records_ = 0;
};

// A Batch message finished from a builder (which is reset), and what it holds.
struct BatchMessage {
  std::string bytes;  // the message to send
  uint64_t records = 0;
  uint64_t raw_bytes = 0;   // frames and references before encoding
  uint64_t data_bytes = 0;  // after: the batch's `data`
};
BatchMessage finish_batch_message(BatchBuilder& builder, int64_t seq, double t_shift,
                                  BatchCodec codec, int level);

// Decompresses a batch; throws ProtocolError when the data is corrupt or larger than
// `declared_raw_bytes` / kMaxBatchRawBytes.
RawBatch decompress_batch(std::string_view zstd, uint64_t declared_raw_bytes);
// The raw frames of a batch payload in `codec` (a Batch message's field, checked here: an
// unknown codec or a size other than `declared_raw_bytes` is a ProtocolError).
RawBatch decode_batch(std::string_view payload, std::string_view codec,
                      uint64_t declared_raw_bytes);

// A batch's frame bodies in order: views into the raw batch (inline frames) or into
// `referenced` (frames read from the shared trace). Moving it keeps the views valid.
// A part's key mask: bit i of `bits` (byte i/8, bit i%8) keeps key i of the record's `keys`.
struct KeyMask {
  std::string_view bits;
  uint32_t keys = 0;
  bool empty() const { return bits.empty(); }
};

struct SplitBatch {
  std::vector<std::string_view> frames;
  std::vector<KeyMask> masks;  // one per frame (empty: the whole record) once any is masked
  std::unique_ptr<uint8_t[]> referenced;
};

// Splits decoded batch bytes into frame bodies, reading references from `trace`. Throws
// ProtocolError on a bad length prefix or a reference without a trace, SharedTraceMismatch
// when the trace cannot serve a reference.
SplitBatch split_frames(const RawBatch& raw, const trace::SharedTrace* trace = nullptr);

}  // namespace fleet::wire
