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

// Unpacked, a msgpack element is a 24-byte object: a 256-MiB PROGRESS of 65,536-element arrays
// of one-byte integers would be 6 GiB. Past 16 MiB only a done, batch or start is unpacked; a
// done that large (its result is bytes) still is.
TEST(ProgressMessage, AnyOtherTypePast16MiBIsRefusedUnpacked) {
  auto message = [](const std::string& type, bool as_bytes) {
    msgpack::sbuffer buf;
    msgpack::packer<msgpack::sbuffer> pk(buf);
    pk.pack_map(3);
    pk.pack(std::string("v"));
    pk.pack(kProtocolVersion);
    pk.pack(std::string("t"));
    pk.pack(type);
    pk.pack(std::string("windows"));
    if (as_bytes) {
      const std::string bytes(17u << 20, '\0');
      pk.pack_bin(static_cast<uint32_t>(bytes.size()));
      pk.pack_bin_body(bytes.data(), static_cast<uint32_t>(bytes.size()));
    } else {
      pk.pack_array(300);
      for (int a = 0; a < 300; ++a) {
        pk.pack_array(60000);
        for (int i = 0; i < 60000; ++i) pk.pack(1);
      }
    }
    return std::string(buf.data(), buf.size());
  };
  const std::string progress = message("progress", false);
  ASSERT_GT(progress.size(), 16u << 20);
  try {
    decode(progress.data(), progress.size());
    FAIL() << "a 17-MiB progress was unpacked";
  } catch (const ProtocolError& e) {
    EXPECT_NE(std::string(e.what()).find("a \"progress\" message of"), std::string::npos)
        << e.what();
  }
  const std::string done = message("done", true);
  EXPECT_EQ(decode(done.data(), done.size()).type, "done");
}

}  // namespace
}  // namespace fleet::wire
