// Every kind of damaged input the trace library must survive (issue 2, "Bad input"): each gives
// a clear message, header problems are TraceErrors, record problems are counted and skipped, a
// truncated tail stops quietly, and nothing crashes, hangs or allocates from a corrupt count.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>

#include "fleet/trace/codecs.h"
#include "fleet/trace/errors.h"
#include "fleet/trace/format.h"
#include "fleet/trace/frame_reader.h"
#include "fleet/trace/op_decoder.h"
#include "fleet/util/utf8.h"
#include "scratch_dir.h"
#include "trace_test_bytes.h"

namespace fleet::trace {
namespace {

using namespace testing;

class Collect final : public Reporter {
 public:
  void warning(uint64_t offset, std::string_view what) override {
    offsets.push_back(offset);
    messages.emplace_back(what);
  }
  std::vector<uint64_t> offsets;
  std::vector<std::string> messages;
};

class BadInput : public ::testing::Test {
 protected:
  std::string path(const std::string& name) const { return dir_ / name; }
  test::ScratchDir dir_;

  // Opening must fail with a TraceError whose message contains `needle`.
  void expect_open_error(const std::string& bytes, const std::string& needle) {
    std::string p = path("open.lct");
    write_bytes(p, bytes);
    try {
      FrameReader r(p);
      FAIL() << "expected TraceError containing: " << needle;
    } catch (const TraceError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << "names the file: " << e.what();
    }
  }

  // Reads every record; returns their offsets.
  std::vector<uint64_t> read_all(const std::string& bytes, Collect& c,
                                 ReaderCounters* out = nullptr) {
    std::string p = path("read.lct");
    write_bytes(p, bytes);
    ReaderOptions o;
    o.reporter = &c;
    FrameReader r(p, o);
    std::vector<uint64_t> offs;
    RecordView rec;
    while (r.next(rec)) offs.push_back(rec.file_offset);
    if (out) *out = r.counters();
    return offs;
  }

  std::string rec1_ = record_frame(test_op(OpKind::ReserveWrite, 0.5, {test_key(1)}));
  std::string rec2_ = record_frame(test_op(OpKind::FinishWrite, 0.75, {test_key(1)}));
};

TEST_F(BadInput, EmptyFile) { expect_open_error("", "empty file"); }

TEST_F(BadInput, OneToThreeByteFile) {
  for (int n = 1; n <= 3; ++n) {
    expect_open_error(std::string(static_cast<size_t>(n), '\0'),
                      "truncated frame length prefix at offset 0");
  }
}

TEST_F(BadInput, TruncatedHeaderBody) {
  expect_open_error(header_frame().substr(0, 40), "truncated header frame body at offset 0");
}

TEST_F(BadInput, WrongMagic) {
  Header h;
  h.magic = "LMCX";
  expect_open_error(header_frame(h), "bad magic");
}

TEST_F(BadInput, FormatVersionNotOne) {
  Header h;
  h.format_version = 2;
  expect_open_error(header_frame(h), "unsupported format_version 2");
}

TEST_F(BadInput, UnknownSchema) {
  Header h;
  h.trace_schema_version = 3;
  expect_open_error(header_frame(h), "unsupported trace_schema_version 3");
  // Schema 1 is readable (only replay refuses it; `lct lint` says so).
  h.trace_schema_version = 1;
  Collect c;
  EXPECT_TRUE(read_all(header_frame(h), c).empty());
}

TEST_F(BadInput, HeaderNotAMap) {
  std::string body;
  MsgpackWriter w(body);
  w.array(2);
  w.str("header");
  w.integer(1);
  expect_open_error(frame_bytes(body), "header is not a msgpack map");
}

TEST_F(BadInput, HeaderMissingField) {
  // The oldest (v0) header has lmcache_version instead of trace_schema_version.
  std::string body;
  MsgpackWriter w(body);
  w.map(2);
  w.str("magic");
  w.bin("LMCT");
  w.str("format_version");
  w.integer(1);
  expect_open_error(frame_bytes(body), "header lacks required field");
}

TEST_F(BadInput, TruncatedPrefixAtEnd) {
  Collect c;
  ReaderCounters counters;
  std::string hdr = header_frame();
  auto offs = read_all(hdr + rec1_ + rec2_ + std::string("\0\0", 2), c, &counters);
  EXPECT_EQ(offs.size(), 2u);
  EXPECT_TRUE(counters.truncated_tail);
  EXPECT_EQ(counters.truncated_tail_bytes, 2u);
  ASSERT_EQ(c.offsets.size(), 1u);
  EXPECT_EQ(c.offsets[0], hdr.size() + rec1_.size() + rec2_.size());
  EXPECT_NE(c.messages[0].find("truncated frame length prefix"), std::string::npos);
}

TEST_F(BadInput, TruncatedBodyAtEnd) {
  Collect c;
  ReaderCounters counters;
  std::string hdr = header_frame();
  auto offs = read_all(hdr + rec1_ + rec2_.substr(0, rec2_.size() - 7), c, &counters);
  EXPECT_EQ(offs.size(), 1u);
  EXPECT_TRUE(counters.truncated_tail);
  ASSERT_EQ(c.messages.size(), 1u);
  EXPECT_EQ(c.offsets[0], hdr.size() + rec1_.size());
  EXPECT_NE(c.messages[0].find("truncated frame body"), std::string::npos) << c.messages[0];
}

TEST_F(BadInput, MalformedRecordInTheMiddleIsSkipped) {
  std::string bad_body =
      encode_record_body(test_op(OpKind::FinishWrite, 0.6, {test_key(1)}), Era::Three);
  bad_body[0] = static_cast<char>(0x93);  // the map becomes an array: not a Record
  std::string trailing =
      encode_record_body(test_op(OpKind::FinishWrite, 0.6, {test_key(1)}), Era::Three) + "x";
  std::string hdr = header_frame();
  Collect c;
  ReaderCounters counters;
  auto offs =
      read_all(hdr + rec1_ + frame_bytes(bad_body) + frame_bytes(trailing) + rec2_, c, &counters);
  ASSERT_EQ(offs.size(), 2u);
  EXPECT_EQ(offs[0], hdr.size());
  EXPECT_EQ(offs[1], hdr.size() + rec1_.size() + 2 * 4 + bad_body.size() + trailing.size());
  EXPECT_EQ(counters.malformed_skipped, 2u);
  EXPECT_FALSE(counters.truncated_tail);
  ASSERT_EQ(c.offsets.size(), 2u);
  EXPECT_EQ(c.offsets[0], hdr.size() + rec1_.size());
  EXPECT_NE(c.messages[0].find("skipping malformed record"), std::string::npos);
  EXPECT_NE(c.messages[1].find("trailing bytes"), std::string::npos) << c.messages[1];
}

TEST_F(BadInput, UnknownCodecTagFailsDecodeNotTheFrame) {
  std::string body = record_body_with_args(kQualFinishWrite, [](MsgpackWriter& w, std::string&) {
    w.map(1);
    w.str("keys");
    w.array(1);
    w.wrapper("ObjectKeyV9");
    w.integer(1);
  });
  Collect c;
  std::string p = path("tag.lct");
  write_bytes(p, header_frame() + frame_bytes(body) + rec2_);
  ReaderOptions o;
  o.reporter = &c;
  FrameReader r(p, o);
  RecordView rec;
  Op op;
  uint64_t skipped = 0, decoded = 0;
  std::string message;
  while (r.next(rec)) {
    try {
      decode_op(rec, op);
      ++decoded;
    } catch (const DecodeError& e) {
      ++skipped;  // LMCache's replay counts it as skipped
      message = e.what();
    }
  }
  EXPECT_EQ(skipped, 1u);
  EXPECT_EQ(decoded, 1u);
  EXPECT_NE(message.find("unknown codec tag"), std::string::npos) << message;
  // One offset, rebased onto the frame body (not the inner one repeated).
  const size_t at = message.find(" at byte ");
  ASSERT_NE(at, std::string::npos) << message;
  EXPECT_EQ(message.find(" at byte ", at + 1), std::string::npos) << message;
  ScanInfo info;
  write_bytes(p, header_frame() + frame_bytes(body));
  FrameReader r2(p, o);
  ASSERT_TRUE(r2.next(rec));
  scan_record(rec, info);
  EXPECT_TRUE(info.decode_failed);
}

TEST_F(BadInput, FourGiBLengthPrefixIsAClearErrorWithoutAllocation) {
  std::string hdr = header_frame();
  std::string p = path("huge.lct");
  write_bytes(p, hdr + rec1_ + prefix_bytes(0xfffffff0u) + "abc");
  Collect c;
  ReaderOptions o;
  o.reporter = &c;
  FrameReader r(p, o);
  RecordView rec;
  ASSERT_TRUE(r.next(rec));
  try {
    r.next(rec);
    FAIL() << "expected TraceError";
  } catch (const TraceError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("offset " + std::to_string(hdr.size() + rec1_.size())), std::string::npos)
        << m;
    EXPECT_NE(m.find("4294967280"), std::string::npos) << m;
  }
  // The same prefix as the header frame.
  expect_open_error(prefix_bytes(0xffffffffu), "offset 0");
}

TEST_F(BadInput, DeeplyNestedValueIsMalformedNotAStackOverflow) {
  std::string body =
      record_body_with_args(kQualFinishWrite, [](MsgpackWriter& w, std::string& out) {
        w.map(1);
        w.str("keys");
        out.append(200000, static_cast<char>(0x91));  // [[[[...]]]] 200k deep
        w.nil();
      });
  Collect c;
  ReaderCounters counters;
  auto offs = read_all(header_frame() + frame_bytes(body) + rec2_, c, &counters);
  EXPECT_EQ(offs.size(), 1u);
  EXPECT_EQ(counters.malformed_skipped, 1u);
  ASSERT_FALSE(c.messages.empty());
  EXPECT_NE(c.messages[0].find("depth limit"), std::string::npos) << c.messages[0];
  // The value-level decoders have the same limit.
  std::string deep(100000, static_cast<char>(0x91));
  deep += static_cast<char>(0xc0);
  MsgpackReader r(reinterpret_cast<const uint8_t*>(deep.data()), deep.size());
  EXPECT_THROW(validate_value(r), DecodeError);
}

TEST_F(BadInput, HugeDeclaredCountsAreRejected) {
  for (uint8_t tag : {uint8_t{0xdd}, uint8_t{0xdf}, uint8_t{0xdc}}) {
    std::string body =
        record_body_with_args(kQualFinishWrite, [&](MsgpackWriter& w, std::string& out) {
          w.map(1);
          w.str("keys");
          out += static_cast<char>(tag);
          out += tag == 0xdc ? std::string("\xff\xff", 2) : std::string("\xff\xff\xff\xff", 4);
        });
    Collect c;
    ReaderCounters counters;
    auto start = std::chrono::steady_clock::now();
    auto offs = read_all(header_frame() + frame_bytes(body) + rec2_, c, &counters);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
    EXPECT_EQ(offs.size(), 1u);
    EXPECT_EQ(counters.malformed_skipped, 1u);
    ASSERT_FALSE(c.messages.empty());
    EXPECT_NE(c.messages[0].find("container"), std::string::npos) << c.messages[0];
  }
}

TEST_F(BadInput, NonUtf8Strings) {
  EXPECT_TRUE(util::is_valid_utf8("plain ascii and caf\xc3\xa9 and \xf0\x9f\x98\x80"));
  EXPECT_FALSE(util::is_valid_utf8("\xff"));
  EXPECT_FALSE(util::is_valid_utf8("\xc0\xaf"));          // overlong '/'
  EXPECT_FALSE(util::is_valid_utf8("\xed\xa0\x80"));      // surrogate U+D800
  EXPECT_FALSE(util::is_valid_utf8("\xf4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(util::is_valid_utf8("abcdefgh\xe2\x82"));  // truncated sequence

  // A qualname, or any str inside args, that is not UTF-8 makes the record malformed (msgspec
  // decodes them as Python str and rejects the frame).
  std::string bad_qual = record_body_with_args(std::string(kQualFinishWrite) + "\xff",
                                               [](MsgpackWriter& w, std::string&) { w.map(0); });
  std::string bad_arg = record_body_with_args(kQualFinishWrite, [](MsgpackWriter& w, std::string&) {
    w.map(1);
    w.str("keys");
    w.array(1);
    w.wrapper("ObjectKey");
    w.map(3);
    w.str("chunk_hash");
    w.bin("abcd");
    w.str("model_name");
    w.str("llama\xc3");
    w.str("kv_rank");
    w.integer(0);
  });
  Collect c;
  ReaderCounters counters;
  auto offs =
      read_all(header_frame() + frame_bytes(bad_qual) + frame_bytes(bad_arg) + rec2_, c, &counters);
  EXPECT_EQ(offs.size(), 1u);
  EXPECT_EQ(counters.malformed_skipped, 2u);
  ASSERT_EQ(c.messages.size(), 2u);
  EXPECT_NE(c.messages[0].find("UTF-8"), std::string::npos) << c.messages[0];
  EXPECT_NE(c.messages[1].find("UTF-8"), std::string::npos) << c.messages[1];

  // In the header it is an invalid header.
  Header h;
  h.level = "stor\xe9ge";
  expect_open_error(header_frame(h), "level is not valid UTF-8");
}

TEST_F(BadInput, DirectoryOrMissingPath) {
  std::string dir = path("a_directory");
  ::mkdir(dir.c_str(), 0755);
  try {
    FrameReader r(dir);
    FAIL();
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
  try {
    FrameReader r(path("does_not_exist.lct"));
    FAIL();
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace fleet::trace
