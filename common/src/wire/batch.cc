#include "fleet/wire/batch.h"

#include <zstd.h>

#include <bit>
#include <cstring>

#include "fleet/trace/errors.h"
#include "fleet/trace/shared_trace.h"
#include "fleet/wire/protocol.h"

namespace fleet::wire {

namespace {


uint64_t read_be(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

void BatchBuilder::add(std::string_view body) {
  const auto n = static_cast<uint32_t>(body.size());
  const char prefix[4] = {static_cast<char>(n >> 24), static_cast<char>(n >> 16),
                          static_cast<char>(n >> 8), static_cast<char>(n)};
  raw_.append(prefix, 4);
  raw_.append(body);
  ++records_;
}

static_assert(std::endian::native == std::endian::little, "add_ref byte-swaps to big-endian");

void BatchBuilder::add_ref(uint64_t frame_offset, uint32_t body_size) {
  // Big-endian fields, written as three stores (this runs once per record per worker).
  const uint32_t marker = __builtin_bswap32(kRefMarker);
  const uint64_t offset = __builtin_bswap64(frame_offset);
  const uint32_t size = __builtin_bswap32(body_size);
  char ref[16];
  std::memcpy(ref, &marker, 4);
  std::memcpy(ref + 4, &offset, 8);
  std::memcpy(ref + 12, &size, 4);
  raw_.append(ref, sizeof ref);
  ++records_;
  ++refs_;
}

void BatchBuilder::FreeCCtx::operator()(ZSTD_CCtx_s* c) const { ZSTD_freeCCtx(c); }

std::string_view codec_name(BatchCodec c) { return c == BatchCodec::None ? "none" : "zstd"; }

std::optional<BatchCodec> parse_codec(std::string_view name) {
  if (name == "zstd") return BatchCodec::Zstd;
  if (name == "none") return BatchCodec::None;
  return std::nullopt;
}

std::string_view BatchBuilder::finish(BatchCodec codec, int level) {
  records_ = 0;
  refs_ = 0;
  if (codec == BatchCodec::None) {
    zbuf_.swap(raw_);  // both buffers keep their capacity: no allocation per batch
    raw_.clear();
    return zbuf_;
  }
  if (!cctx_) cctx_.reset(ZSTD_createCCtx());
  const size_t bound = ZSTD_compressBound(raw_.size());
  if (zbuf_.size() < bound) zbuf_.resize(bound);  // grows to the largest batch, then stays
  size_t n = ZSTD_compressCCtx(cctx_.get(), zbuf_.data(), zbuf_.size(), raw_.data(), raw_.size(),
                               level);
  if (ZSTD_isError(n)) throw ProtocolError(std::string("zstd compress: ") + ZSTD_getErrorName(n));
  raw_.clear();
  return {zbuf_.data(), n};
}

RawBatch decompress_batch(std::string_view zstd, uint64_t declared_raw_bytes) {
  if (declared_raw_bytes > kMaxBatchRawBytes) {
    throw ProtocolError("batch declares " + std::to_string(declared_raw_bytes) +
                        " raw bytes, above the limit of " + std::to_string(kMaxBatchRawBytes));
  }
  unsigned long long content = ZSTD_getFrameContentSize(zstd.data(), zstd.size());
  if (content == ZSTD_CONTENTSIZE_ERROR || content != declared_raw_bytes) {
    throw ProtocolError("batch is not a zstd frame of the declared size");
  }
  RawBatch raw(declared_raw_bytes);
  // One decompression context per thread (ZSTD_decompress would build one per call).
  struct DCtx {
    ZSTD_DCtx* c = ZSTD_createDCtx();
    ~DCtx() { ZSTD_freeDCtx(c); }
  };
  thread_local DCtx dctx;
  size_t n = ZSTD_decompressDCtx(dctx.c, raw.data(), raw.size(), zstd.data(), zstd.size());
  if (ZSTD_isError(n) || n != declared_raw_bytes) {
    throw ProtocolError(std::string("corrupt batch: ") +
                        (ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short output"));
  }
  return raw;
}

RawBatch decode_batch(std::string_view payload, std::string_view codec,
                      uint64_t declared_raw_bytes) {
  const auto c = parse_codec(codec);
  if (!c) throw ProtocolError("batch codec \"" + std::string(codec) + "\" is not zstd or none");
  if (*c == BatchCodec::Zstd) return decompress_batch(payload, declared_raw_bytes);
  if (declared_raw_bytes > kMaxBatchRawBytes) {
    throw ProtocolError("batch declares " + std::to_string(declared_raw_bytes) +
                        " raw bytes, above the limit of " + std::to_string(kMaxBatchRawBytes));
  }
  if (payload.size() != declared_raw_bytes) {
    throw ProtocolError("uncompressed batch of " + std::to_string(payload.size()) +
                        " bytes declares " + std::to_string(declared_raw_bytes));
  }
  RawBatch raw(payload.size());
  std::memcpy(raw.data(), payload.data(), payload.size());
  return raw;
}

SplitBatch split_frames(const RawBatch& raw, const trace::SharedTrace* trace) {
  SplitBatch out;
  std::vector<trace::FrameRef> refs;
  std::vector<size_t> ref_slots;  // index in out.frames of each reference
  size_t pos = 0;
  while (pos < raw.size()) {
    if (raw.size() - pos < 4) throw ProtocolError("batch ends inside a frame length prefix");
    const auto n = static_cast<uint32_t>(read_be(raw.data() + pos, 4));
    pos += 4;
    if (n == kRefMarker) {
      if (raw.size() - pos < 12) throw ProtocolError("batch ends inside a record reference");
      if (!trace) throw ProtocolError("record reference in a run without a shared trace");
      refs.push_back({read_be(raw.data() + pos, 8), static_cast<uint32_t>(read_be(raw.data() + pos + 8, 4))});
      ref_slots.push_back(out.frames.size());
      out.frames.emplace_back();  // filled below, once the references are read
      pos += 12;
      continue;
    }
    if (n > raw.size() - pos) throw ProtocolError("batch frame runs past the batch end");
    out.frames.emplace_back(reinterpret_cast<const char*>(raw.data() + pos), n);
    pos += n;
  }
  if (!refs.empty()) {
    trace::ReadFrames read;
    try {
      read = trace->read(refs, kMaxBatchRawBytes);
    } catch (const trace::TraceError& e) {
      throw SharedTraceMismatch(e.what());
    }
    for (size_t k = 0; k < refs.size(); ++k) out.frames[ref_slots[k]] = read.bodies[k];
    out.referenced = std::move(read.bytes);
  }
  return out;
}

}  // namespace fleet::wire
