// Helpers for tests that build (and damage) .lct files byte by byte: a valid header frame,
// typical record frames, and raw writes. Shared by unit_trace and unit_lct.
#pragma once

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fleet/trace/header.h"
#include "fleet/trace/msgpack_writer.h"
#include "fleet/trace/op_encoder.h"
#include "fleet/trace/trace_writer.h"

namespace fleet::trace::testing {

inline ObjectKey test_key(int i, const std::string& model = "m") {
  ObjectKey k;
  k.chunk_hash = std::string("\0\0\0", 3) + static_cast<char>(i);
  k.model_name = model;
  return k;
}

inline Op test_op(OpKind kind, double t, std::vector<ObjectKey> keys) {
  Op op;
  op.kind = kind;
  op.t_mono = t;
  op.t_wall = 1700000000.0 + t;
  if (kind == OpKind::SubmitPrefetch) {
    op.spec.keys = std::move(keys);
    op.spec.group_layouts[0].shapes = {{16, 16}};
    op.spec.group_layouts[0].dtypes = {DType::Float16};
  } else {
    op.keys = std::move(keys);
  }
  op.layout.shapes = {{16, 16}};
  op.layout.dtypes = {DType::Float16};
  return op;
}

inline std::string header_frame(Header h = {}) { return frame_bytes(encode_header(h)); }

inline std::string record_frame(const Op& op, Era era = Era::Three) {
  return frame_bytes(encode_record_body(op, era));
}

// A record body whose args are built by `fill` (for codec- and UTF-8-level damage).
template <class F>
std::string record_body_with_args(std::string_view qualname, F fill, double t = 1.0) {
  std::string out;
  MsgpackWriter w(out);
  w.map(5);
  w.str("type");
  w.str("record");
  w.str("t_mono");
  w.float64(t);
  w.str("t_wall");
  w.float64(1700000000.0 + t);
  w.str("qualname");
  w.str(qualname);
  w.str("args");
  fill(w, out);
  return out;
}

inline std::string prefix_bytes(uint32_t n) {
  return {static_cast<char>(n >> 24), static_cast<char>(n >> 16), static_cast<char>(n >> 8),
          static_cast<char>(n)};
}

inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace fleet::trace::testing
