// Record batches on the wire: record frames exactly as in a `.lct` file (u32 BE length +
// msgpack body), concatenated, then zstd-compressed or sent as they are (codec "none": on
// loopback compression only burns CPU on both ends). The coordinator fills one per worker
// until ~1k records or ~256 KiB; the worker decodes (bounded) and walks the frames.
#pragma once

#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

struct ZSTD_CCtx_s;

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

enum class BatchCodec : uint8_t { Zstd, None };
std::string_view codec_name(BatchCodec c);  // "zstd" | "none": the Batch message's `codec`
std::optional<BatchCodec> parse_codec(std::string_view name);
inline constexpr size_t kBatchMaxBytes = 256u << 10;

class BatchBuilder {
 public:
  void add(std::string_view body);  // one record frame body
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

// Decompresses a batch; throws ProtocolError when the data is corrupt or larger than
// `declared_raw_bytes` / kMaxBatchRawBytes.
RawBatch decompress_batch(std::string_view zstd, uint64_t declared_raw_bytes);
// The raw frames of a batch payload in `codec` (a Batch message's field, checked here: an
// unknown codec or a size other than `declared_raw_bytes` is a ProtocolError).
RawBatch decode_batch(std::string_view payload, std::string_view codec,
                      uint64_t declared_raw_bytes);

// Splits decompressed bytes into frame bodies; throws ProtocolError on a bad length prefix.
std::vector<std::string_view> split_frames(const RawBatch& raw);

}  // namespace fleet::wire
