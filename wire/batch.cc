#include "fleet/wire/batch.h"

#include <zstd.h>

#include <cstring>

#include "fleet/trace/errors.h"
#include "fleet/trace/shared_trace.h"
#include "fleet/util/big_endian.h"
#include "fleet/wire/protocol.h"

namespace fleet::wire {

void BatchBuilder::add(std::string_view body) {
  char prefix[4];
  util::store_be32(prefix, static_cast<uint32_t>(body.size()));
  raw_.append(prefix, 4);
  raw_.append(body);
  ++records_;
}

void BatchBuilder::add_ref(uint64_t frame_offset, uint32_t body_size) {
  char ref[16];
  util::store_be32(ref, kRefMarker);
  util::store_be64(ref + 4, frame_offset);
  util::store_be32(ref + 12, body_size);
  raw_.append(ref, sizeof ref);
  ++records_;
}

void BatchBuilder::add_masked_ref(uint64_t frame_offset, uint32_t body_size, std::string_view mask,
                                  uint16_t keys) {
  char ref[18];
  util::store_be32(ref, kMaskedRefMarker);
  util::store_be64(ref + 4, frame_offset);
  util::store_be32(ref + 12, body_size);
  ref[16] = static_cast<char>(keys >> 8);
  ref[17] = static_cast<char>(keys & 0xFF);
  raw_.append(ref, sizeof ref);
  raw_.append(mask.substr(0, (keys + 7u) / 8));
  ++records_;
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
  if (codec == BatchCodec::None) {
    zbuf_.swap(raw_);  // both buffers keep their capacity: no allocation per batch
    raw_.clear();
    return zbuf_;
  }
  if (!cctx_) cctx_.reset(ZSTD_createCCtx());
  const size_t bound = ZSTD_compressBound(raw_.size());
  if (zbuf_.size() < bound) zbuf_.resize(bound);  // grows to the largest batch, then stays
  size_t n =
      ZSTD_compressCCtx(cctx_.get(), zbuf_.data(), zbuf_.size(), raw_.data(), raw_.size(), level);
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

BatchMessage finish_batch_message(BatchBuilder& builder, int64_t seq, double t_shift,
                                  BatchCodec codec, int level) {
  BatchMessage m;
  m.records = builder.records();
  m.raw_bytes = builder.raw_bytes();
  Batch b;
  b.seq = seq;
  b.records = static_cast<int64_t>(m.records);
  b.raw_bytes = static_cast<int64_t>(m.raw_bytes);
  b.t_shift = t_shift;
  const std::string_view data = builder.finish(codec, level);
  m.data_bytes = data.size();
  b.codec = std::string(codec_name(codec));
  b.data = msgpack::type::raw_ref(data.data(), static_cast<uint32_t>(data.size()));
  m.bytes = encode(b);
  return m;
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
  // An empty batch has no buffer: memcpy from or to null is undefined even for 0 bytes.
  if (!payload.empty()) std::memcpy(raw.data(), payload.data(), payload.size());
  return raw;
}

SplitBatch split_frames(const RawBatch& raw, const trace::SharedTrace* trace) {
  SplitBatch out;
  std::vector<trace::FrameRef> refs;
  std::vector<size_t> ref_slots;  // index in out.frames of each reference
  size_t pos = 0;
  while (pos < raw.size()) {
    if (raw.size() - pos < 4) throw ProtocolError("batch ends inside a frame length prefix");
    const uint32_t n = util::load_be32(raw.data() + pos);
    pos += 4;
    if (n == kRefMarker || n == kMaskedRefMarker) {
      const size_t head = n == kRefMarker ? 12 : 14;
      if (raw.size() - pos < head) throw ProtocolError("batch ends inside a record reference");
      if (!trace) throw ProtocolError("record reference in a run without a shared trace");
      refs.push_back({util::load_be64(raw.data() + pos), util::load_be32(raw.data() + pos + 8)});
      ref_slots.push_back(out.frames.size());
      out.frames.emplace_back();  // filled below, once the references are read
      if (n == kMaskedRefMarker) {
        const uint32_t keys = (uint32_t{raw[pos + 12]} << 8) | raw[pos + 13];
        const size_t bytes = (keys + 7u) / 8;
        if (keys == 0) throw ProtocolError("masked record reference for no key");
        if (raw.size() - pos - head < bytes) throw ProtocolError("batch ends inside a key mask");
        out.masks.resize(out.frames.size());
        out.masks.back() = {{reinterpret_cast<const char*>(raw.data() + pos + head), bytes}, keys};
        pos += bytes;
      }
      pos += head;
      continue;
    }
    if (n > raw.size() - pos) throw ProtocolError("batch frame runs past the batch end");
    out.frames.emplace_back(reinterpret_cast<const char*>(raw.data() + pos), n);
    pos += n;
  }
  if (!out.masks.empty()) out.masks.resize(out.frames.size());
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
