// PROGRESS carries a self-routing worker's scan fraction; a message without the field (an older
// worker, or one the coordinator routes for) decodes to -1, "not known".
#include <gtest/gtest.h>

#include <msgpack.hpp>

#include "fleet/wire/protocol.h"

namespace fleet::wire {
namespace {

TEST(ProgressMessage, CarriesTheReadFractionAndDefaultsToUnknown) {
  Progress p;
  p.records = 12;
  p.read_fraction = 0.375;
  const std::string bytes = encode(p);
  const Progress back = decode(bytes.data(), bytes.size()).as<Progress>();
  EXPECT_EQ(back.records, 12);
  EXPECT_DOUBLE_EQ(back.read_fraction, 0.375);

  // The same message as a worker without the field writes it.
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(buf);
  pk.pack_map(4);
  pk.pack(std::string("v"));
  pk.pack(kProtocolVersion);
  pk.pack(std::string("t"));
  pk.pack(std::string("progress"));
  pk.pack(std::string("records"));
  pk.pack(7);
  pk.pack(std::string("trace_time_s"));
  pk.pack(1.5);
  const Progress old = decode(buf.data(), buf.size()).as<Progress>();
  EXPECT_EQ(old.records, 7);
  EXPECT_DOUBLE_EQ(old.trace_time_s, 1.5);
  EXPECT_DOUBLE_EQ(old.read_fraction, -1.0);
}

}  // namespace
}  // namespace fleet::wire
