// SharedTrace: identity checks, batched reads by reference (runs, gaps, any order) and the
// errors a worker reports when its copy of the trace is not the coordinator's.
#include "fleet/trace/shared_trace.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fleet/trace/errors.h"
#include "fleet/trace/trace_writer.h"
#include "scratch_dir.h"

namespace fleet::trace {
namespace {

std::string temp_path(const std::string& name) { return fleet::test::test_scratch_dir() / name; }

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// A file of frames with distinct bodies; `offsets` gets each frame's offset.
std::string frames_file(const std::string& name, int count, size_t body_size,
                        std::vector<FrameRef>& refs) {
  std::string bytes = "HEADER--";
  for (int i = 0; i < count; ++i) {
    std::string body(body_size + static_cast<size_t>(i % 7), static_cast<char>('a' + i % 26));
    body += std::to_string(i);
    refs.push_back({bytes.size(), static_cast<uint32_t>(body.size())});
    bytes += frame_bytes(body);
  }
  const std::string path = temp_path(name);
  write_file(path, bytes);
  return path;
}

std::string body_at(const std::string& path, const FrameRef& r) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(r.offset + 4));
  std::string b(r.body_size, '\0');
  in.read(b.data(), static_cast<std::streamsize>(b.size()));
  return b;
}

TEST(SharedTrace, ReadsEveryReferenceInAnyOrderWithGaps) {
  std::vector<FrameRef> all;
  const std::string path = frames_file("order.lct", 3000, 100, all);  // ~330 KiB
  SharedTrace t(path, identify_trace(path));
  // Consecutive frames (one run), every 5th (gaps below the read-through limit), far jumps,
  // backwards and a repeated frame.
  std::vector<FrameRef> refs;
  for (int i = 10; i < 40; ++i) refs.push_back(all[i]);
  for (int i = 100; i < 400; i += 5) refs.push_back(all[i]);
  refs.push_back(all[2999]);
  refs.push_back(all[0]);
  refs.push_back(all[1500]);
  refs.push_back(all[1500]);
  ReadFrames got = t.read(refs, 1u << 30);
  ASSERT_EQ(got.bodies.size(), refs.size());
  for (size_t i = 0; i < refs.size(); ++i) {
    EXPECT_EQ(std::string(got.bodies[i]), body_at(path, refs[i])) << "reference " << i;
  }
}

TEST(SharedTrace, RefusesACopyOfAnotherSizeOrContent) {
  std::vector<FrameRef> refs;
  const std::string path = frames_file("orig.lct", 200, 50, refs);
  const TraceIdentity id = identify_trace(path);
  EXPECT_EQ(id.fingerprint.size(), 16u);
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::string longer = temp_path("longer.lct");
  write_file(longer, bytes + "x");
  try {
    SharedTrace t(longer, id);
    FAIL() << "a longer copy was accepted";
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("in the coordinator's trace"), std::string::npos)
        << e.what();
  }
  std::string edited = bytes;
  edited[3] ^= 1;
  const std::string other = temp_path("edited.lct");
  write_file(other, edited);
  try {
    SharedTrace t(other, id);
    FAIL() << "a copy with other content was accepted";
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("different content"), std::string::npos) << e.what();
  }
  EXPECT_THROW(identify_trace(temp_path("missing.lct")), TraceError);
  EXPECT_THROW(identify_trace(fleet::test::test_scratch_dir().str()), TraceError);  // a directory
}

TEST(SharedTrace, AReferenceThatDoesNotMatchTheFileIsAnError) {
  std::vector<FrameRef> refs;
  const std::string path = frames_file("mismatch.lct", 100, 40, refs);
  SharedTrace t(path, identify_trace(path));
  FrameRef wrong_size = refs[50];
  ++wrong_size.body_size;
  try {
    t.read(std::vector<FrameRef>{refs[1], wrong_size}, 1u << 30);
    FAIL() << "a length that differs from the frame's prefix was accepted";
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("at offset " + std::to_string(wrong_size.offset)),
              std::string::npos)
        << e.what();
  }
  FrameRef beyond{t.size() - 3, 10};
  EXPECT_THROW(t.read(std::vector<FrameRef>{beyond}, 1u << 30), TraceError);
  FrameRef far{t.size() + 100, 1};
  EXPECT_THROW(t.read(std::vector<FrameRef>{far}, 1u << 30), TraceError);
  // The same frame referenced again and again (a broken or hostile coordinator) is bounded.
  std::vector<FrameRef> many(64, refs[10]);
  many.push_back(refs[90]);  // far away: a second run
  try {
    t.read(many, 60);
    FAIL() << "references beyond the byte limit were read";
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("more than 60 bytes"), std::string::npos) << e.what();
  }
}

TEST(SharedTrace, ASmallFileHasAnIdentityToo) {
  const std::string path = temp_path("small.lct");
  write_file(path, frame_bytes("just one"));
  const TraceIdentity id = identify_trace(path);
  EXPECT_EQ(id.size, 12u);
  SharedTrace t(path, id);
  ReadFrames got = t.read(std::vector<FrameRef>{{0, 8}}, 1u << 30);
  EXPECT_EQ(got.bodies.at(0), "just one");
}

}  // namespace
}  // namespace fleet::trace
