// Record batches on the wire: record frames exactly as in a `.lct` file (u32 BE length +
// msgpack body), concatenated and zstd-compressed. The coordinator fills one per worker until
// ~1k records or ~256 KiB; the worker decompresses (bounded) and walks the frames.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fleet::wire {

inline constexpr size_t kBatchMaxRecords = 1024;
inline constexpr size_t kBatchMaxBytes = 256u << 10;

class BatchBuilder {
 public:
  void add(std::string_view body);  // one record frame body
  bool full() const { return records_ >= kBatchMaxRecords || raw_.size() >= kBatchMaxBytes; }
  bool empty() const { return records_ == 0; }
  size_t records() const { return records_; }
  size_t raw_bytes() const { return raw_.size(); }
  // Compresses and resets the builder.
  std::string finish_compressed(int level = 1);

 private:
  std::string raw_;
  size_t records_ = 0;
};

// Decompresses a batch; throws ProtocolError when the data is corrupt or larger than
// `declared_raw_bytes` / kMaxBatchRawBytes.
std::vector<uint8_t> decompress_batch(std::string_view zstd, uint64_t declared_raw_bytes);

// Splits decompressed bytes into frame bodies; throws ProtocolError on a bad length prefix.
std::vector<std::string_view> split_frames(const std::vector<uint8_t>& raw);

}  // namespace fleet::wire
