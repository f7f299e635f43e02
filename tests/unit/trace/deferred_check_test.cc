// The replay's one-pass decode (parse_record with defer_args_check, then decode_op validating as
// it goes) must classify every frame exactly as the strict two-pass path does: malformed
// (dropped by the reader), args that do not decode (skipped) or a decoded op — the same op.
#include <gtest/gtest.h>
#include <unistd.h>

#include <functional>
#include <string>
#include <vector>

#include "fleet/trace/codecs.h"
#include "fleet/trace/format.h"
#include "fleet/trace/frame_reader.h"
#include "fleet/trace/op_decoder.h"
#include "scratch_dir.h"
#include "trace_test_bytes.h"

namespace fleet::trace {
namespace {

using testing::record_body_with_args;
using testing::test_key;
using testing::test_op;

enum class Outcome { Malformed, ArgsError, Decoded };

struct Result {
  Outcome outcome;
  Op op;
};

Result classify(const std::string& body, bool deferred) {
  RecordView rec;
  Result res{Outcome::Decoded, {}};
  const auto* p = reinterpret_cast<const uint8_t*>(body.data());
  try {
    parse_record(p, body.size(), rec, {}, deferred);
  } catch (const DecodeError&) {
    res.outcome = Outcome::Malformed;
    return res;
  }
  try {
    decode_op(rec, res.op);
  } catch (const MalformedRecord&) {
    res.outcome = Outcome::Malformed;
  } catch (const DecodeError&) {
    res.outcome = Outcome::ArgsError;
  }
  return res;
}

using Fill = std::function<void(MsgpackWriter&, std::string&)>;

// One ObjectKey whose model name (and optionally one extra field) the case chooses.
void key_with(MsgpackWriter& w, std::string_view model, std::string_view extra_key = {},
              std::string_view extra_value = {}) {
  w.wrapper("ObjectKey");
  w.map(extra_key.empty() ? 3 : 4);
  w.str("chunk_hash");
  w.bin("abcd");
  w.str("model_name");
  w.str(model);
  w.str("kv_rank");
  w.integer(0);
  if (!extra_key.empty()) {
    w.str(extra_key);
    w.str(extra_value);
  }
}

struct Case {
  const char* name;
  std::string body;
  Outcome expected;
};

std::vector<Case> corpus() {
  std::vector<Case> cases;
  auto finish_write = [&](const char* name, Outcome expected, Fill fill) {
    cases.push_back({name, record_body_with_args(kQualFinishWrite, fill), expected});
  };
  for (auto kind : {OpKind::ReserveWrite, OpKind::FinishWrite, OpKind::SubmitPrefetch,
                    OpKind::ReadEnter, OpKind::ReadExit, OpKind::FinishRead, OpKind::AbortWrite}) {
    Op op = test_op(kind, 0.5, {test_key(1), test_key(2, "llama"), test_key(3)});
    op.external_request_id = "req-\xc3\xa9";  // valid non-ASCII
    cases.push_back({"valid op", encode_record_body(op, Era::Three), Outcome::Decoded});
  }
  finish_write("bad UTF-8 in a model name", Outcome::Malformed, [](MsgpackWriter& w, std::string&) {
    w.map(1);
    w.str("keys");
    w.array(1);
    key_with(w, "llama\xc3");
  });
  finish_write("bad UTF-8 in an unknown key field", Outcome::Malformed,
               [](MsgpackWriter& w, std::string&) {
                 w.map(1);
                 w.str("keys");
                 w.array(1);
                 key_with(w, "m", "note", "\xff");
               });
  finish_write("bad UTF-8 in an unknown argument's value", Outcome::Malformed,
               [](MsgpackWriter& w, std::string&) {
                 w.map(2);
                 w.str("keys");
                 w.array(1);
                 key_with(w, "m");
                 w.str("extra");
                 w.array(1);
                 w.str("ok\xed\xa0\x80");  // surrogate
               });
  finish_write("bad UTF-8 in an argument name", Outcome::Malformed,
               [](MsgpackWriter& w, std::string&) {
                 w.map(2);
                 w.str("keys");
                 w.array(1);
                 key_with(w, "m");
                 w.str("ex\xfftra");
                 w.integer(1);
               });
  finish_write("an argument name that is not a str", Outcome::Malformed,
               [](MsgpackWriter& w, std::string&) {
                 w.map(2);
                 w.str("keys");
                 w.array(1);
                 key_with(w, "m");
                 w.integer(7);
                 w.integer(1);
               });
  finish_write("args not a map", Outcome::Malformed,
               [](MsgpackWriter& w, std::string&) { w.array(0); });
  finish_write("trailing bytes after args", Outcome::Malformed,
               [](MsgpackWriter& w, std::string& out) {
                 w.map(1);
                 w.str("keys");
                 w.array(1);
                 key_with(w, "m");
                 out += '\xc0';
               });
  finish_write("args cut short", Outcome::Malformed, [](MsgpackWriter& w, std::string&) {
    w.map(2);
    w.str("keys");
    w.array(1);
    key_with(w, "m");
  });
  finish_write("unknown codec tag (decodes as msgpack, not as an op)", Outcome::ArgsError,
               [](MsgpackWriter& w, std::string&) {
                 w.map(1);
                 w.str("keys");
                 w.array(1);
                 w.wrapper("ObjectKeyV9");
                 w.integer(1);
               });
  finish_write("missing keys argument", Outcome::ArgsError, [](MsgpackWriter& w, std::string&) {
    w.map(1);
    w.str("other");
    w.integer(1);
  });
  cases.push_back({"qualname not UTF-8",
                   record_body_with_args(std::string(kQualFinishWrite) + "\xff",
                                         [](MsgpackWriter& w, std::string&) {
                                           w.map(1);
                                           w.str("keys");
                                           w.array(1);
                                           key_with(w, "m");
                                         }),
                   Outcome::Malformed});
  cases.push_back({"unknown qualname, valid args",
                   record_body_with_args("pkg.Other.method",
                                         [](MsgpackWriter& w, std::string&) {
                                           w.map(1);
                                           w.str("x");
                                           w.str("fine");
                                         }),
                   Outcome::Decoded});
  cases.push_back({"unknown qualname, bad UTF-8 in args",
                   record_body_with_args("pkg.Other.method",
                                         [](MsgpackWriter& w, std::string&) {
                                           w.map(1);
                                           w.str("x");
                                           w.str("\xc0\xaf");
                                         }),
                   Outcome::Malformed});
  return cases;
}

TEST(DeferredArgsCheck, ClassifiesEveryFrameAsTheStrictPathDoes) {
  for (const Case& c : corpus()) {
    SCOPED_TRACE(c.name);
    Result strict = classify(c.body, /*deferred=*/false);
    Result deferred = classify(c.body, /*deferred=*/true);
    EXPECT_EQ(strict.outcome, c.expected);
    EXPECT_EQ(deferred.outcome, strict.outcome);
    if (strict.outcome == Outcome::Decoded && deferred.outcome == Outcome::Decoded) {
      EXPECT_EQ(deferred.op.kind, strict.op.kind);
      EXPECT_EQ(deferred.op.op_keys(), strict.op.op_keys());
      EXPECT_EQ(deferred.op.spec, strict.op.spec);
      EXPECT_EQ(deferred.op.layout, strict.op.layout);
      EXPECT_EQ(deferred.op.external_request_id, strict.op.external_request_id);
    }
  }
}

TEST(DeferredArgsCheck, ArgsBeforeOtherFieldsAreCheckedAtOnce) {
  // Only an `args` that ends the frame is deferred; elsewhere the walk happens as before.
  std::string body;
  MsgpackWriter w(body);
  w.map(4);
  w.str("args");
  w.map(1);
  w.str("keys");
  w.array(1);
  key_with(w, "llama\xc3");
  w.str("t_mono");
  w.float64(1.0);
  w.str("t_wall");
  w.float64(2.0);
  w.str("qualname");
  w.str(kQualFinishWrite);
  RecordView rec;
  EXPECT_THROW(parse_record(reinterpret_cast<const uint8_t*>(body.data()), body.size(), rec, {},
                            /*defer_args_check=*/true),
               DecodeError);
}

TEST(DeferredArgsCheck, ReaderCountsRejectedRecordsAsMalformed) {
  std::string bad = record_body_with_args(kQualFinishWrite, [](MsgpackWriter& w, std::string&) {
    w.map(1);
    w.str("keys");
    w.array(1);
    key_with(w, "llama\xc3");
  });
  std::string good =
      encode_record_body(test_op(OpKind::FinishWrite, 1.0, {test_key(1)}), Era::Three);
  fleet::test::ScratchDir dir;
  std::string path = dir / "deferred_check.lct";
  testing::write_bytes(path, testing::header_frame() + frame_bytes(bad) + frame_bytes(good));
  struct Collect : Reporter {
    std::vector<std::string> messages;
    void warning(uint64_t, std::string_view what) override { messages.emplace_back(what); }
  } collect;
  ReaderOptions o;
  o.reporter = &collect;
  o.defer_args_check = true;
  FrameReader reader(path, o);
  RecordView rec;
  Op op;
  int decoded = 0;
  while (reader.next(rec)) {
    try {
      decode_op(rec, op);
      ++decoded;
    } catch (const MalformedRecord& e) {
      reader.reject_malformed(rec, e.what());
    }
  }
  EXPECT_EQ(decoded, 1);
  EXPECT_EQ(reader.counters().records, 1u);
  EXPECT_EQ(reader.counters().malformed_skipped, 1u);
  ASSERT_EQ(collect.messages.size(), 1u);
  EXPECT_NE(collect.messages[0].find("skipping malformed record"), std::string::npos);
  EXPECT_NE(collect.messages[0].find("UTF-8"), std::string::npos) << collect.messages[0];
}

// The coordinator's router scans instead of decoding: with deferred args the scan must refuse
// exactly the frames the strict reader refuses, and otherwise scan exactly what it scans.
TEST(DeferredArgsCheck, ScanRefusesExactlyTheMalformedFrames) {
  for (const Case& c : corpus()) {
    SCOPED_TRACE(c.name);
    const auto* p = reinterpret_cast<const uint8_t*>(c.body.data());
    RecordView strict_rec;
    bool strict_ok = true;
    try {
      parse_record(p, c.body.size(), strict_rec, {}, false);
    } catch (const DecodeError&) {
      strict_ok = false;
    }
    RecordView rec;
    try {
      parse_record(p, c.body.size(), rec, {}, true);
    } catch (const DecodeError&) {
      EXPECT_FALSE(strict_ok);  // the deferred parse may only refuse what strict refuses
      continue;
    }
    ScanInfo deferred;
    bool refused = false;
    try {
      scan_record(rec, deferred);
    } catch (const MalformedRecord&) {
      refused = true;
    }
    EXPECT_EQ(refused, !strict_ok);
    bool check_refused = false;
    try {
      check_deferred_args(rec);
    } catch (const MalformedRecord&) {
      check_refused = true;
    }
    EXPECT_EQ(check_refused, !strict_ok);
    if (strict_ok && !refused) {
      ScanInfo strict;
      scan_record(strict_rec, strict);
      EXPECT_EQ(deferred.kind, strict.kind);
      EXPECT_EQ(deferred.chunk_ids, strict.chunk_ids);
      EXPECT_EQ(deferred.decode_failed, strict.decode_failed);
    }
  }
}

// The scan remembers a canonical model name's bytes to skip re-reading it; a key whose model
// arrives another way (a str8-encoded field name) or is absent must not inherit the remembered
// model. Every id must be the lifecycle id of the key's own (model, chunk hash).
TEST(DeferredArgsCheck, ScanGivesEveryKeyItsOwnModel) {
  struct K {
    std::string model;  // empty: no model_name field
    bool canonical;
    std::string hash;
  };
  const std::vector<K> keys = {{"A", true, "h1"}, {"B", false, "h2"}, {"A", true, "h3"},
                               {"", true, "h4"},  {"A", true, "h5"},  {"C", true, "h6"}};
  std::string body =
      record_body_with_args(kQualFinishWrite, [&](MsgpackWriter& w, std::string& out) {
        w.map(1);
        w.str("keys");
        w.array(static_cast<uint32_t>(keys.size()));
        for (const K& k : keys) {
          w.wrapper("ObjectKey");
          w.map(k.model.empty() ? 1 : 2);
          w.str("chunk_hash");
          w.bin(k.hash);
          if (k.model.empty()) continue;
          if (k.canonical) {
            w.str("model_name");
          } else {
            out += "\xd9\x0amodel_name";  // str8: same text, not LMCache's canonical bytes
          }
          w.str(k.model);
        }
      });
  for (bool deferred : {false, true}) {
    SCOPED_TRACE(deferred);
    RecordView rec;
    parse_record(reinterpret_cast<const uint8_t*>(body.data()), body.size(), rec, {}, deferred);
    ScanInfo info;
    scan_record(rec, info);
    ASSERT_FALSE(info.decode_failed);
    ASSERT_EQ(info.chunk_ids.size(), keys.size());
    for (size_t i = 0; i < keys.size(); ++i) {
      EXPECT_EQ(info.chunk_ids[i],
                chunk_lifecycle_id(chunk_identity_model_state(keys[i].model), keys[i].hash))
          << i;
    }
  }
}

}  // namespace
}  // namespace fleet::trace

namespace fleet::trace {
namespace {

struct FullKey {
  std::string model;
  std::string hash;
  int64_t kv_rank = 0;
  std::string salt;
};

// Keys exactly as LMCache writes them (all five fields), which the scan matches as bytes.
std::string record_with_full_keys(const std::vector<FullKey>& keys) {
  return testing::record_body_with_args(kQualFinishWrite, [&](MsgpackWriter& w, std::string&) {
    w.map(1);
    w.str("keys");
    w.array(static_cast<uint32_t>(keys.size()));
    for (const FullKey& f : keys) {
      ObjectKey k;
      k.chunk_hash = f.hash;
      k.model_name = f.model;
      k.kv_rank = f.kv_rank;
      k.cache_salt = f.salt;
      encode_object_key(k, w);
    }
  });
}

// The scan remembers the model's bytes from record to record (one ScanInfo, as the router
// keeps it): every id must still be its own key's, whatever model came before.
TEST(ScanCanonicalKeys, TheRememberedModelFollowsEveryRecord) {
  const std::vector<std::vector<FullKey>> records = {
      {{"A", "h1", 0, ""}, {"A", "h2", 0, ""}, {"A", "h3", 0, ""}},
      {{"B", "h1", 0, ""}, {"B", "h4", 0, ""}},
      {{"A", "h5", 0, ""}, {"B", "h5", 0, ""}, {"A", "h5", 0, ""}},
      {{"A", "h6", 300, "tenant"}, {"A", "h7", 1, ""}},  // a uint16 kv_rank, a salt
      {{std::string(40, 'L'), "h8", 0, ""}, {std::string(40, 'L'), "h9", 0, ""}},  // str8 model
  };
  for (bool deferred : {false, true}) {
    SCOPED_TRACE(deferred);
    ScanInfo info;
    for (const auto& keys : records) {
      const std::string body = record_with_full_keys(keys);
      RecordView rec;
      parse_record(reinterpret_cast<const uint8_t*>(body.data()), body.size(), rec, {}, deferred);
      scan_record(rec, info);
      ASSERT_FALSE(info.decode_failed);
      ASSERT_EQ(info.chunk_ids.size(), keys.size());
      for (size_t i = 0; i < keys.size(); ++i) {
        EXPECT_EQ(info.chunk_ids[i],
                  chunk_lifecycle_id(chunk_identity_model_state(keys[i].model), keys[i].hash))
            << keys[i].model << "/" << keys[i].hash;
      }
    }
  }
}

// A salt that is not UTF-8 in an otherwise canonical key is still refused (msgspec would).
TEST(ScanCanonicalKeys, AnInvalidSaltIsStillMalformed) {
  ScanInfo info;
  const std::string good = record_with_full_keys({{"A", "h1", 0, ""}});
  RecordView rec;
  parse_record(reinterpret_cast<const uint8_t*>(good.data()), good.size(), rec, {}, true);
  scan_record(rec, info);  // the model's bytes are now remembered
  const std::string bad = record_with_full_keys({{"A", "h2", 0, "\xff\xfe"}});
  parse_record(reinterpret_cast<const uint8_t*>(bad.data()), bad.size(), rec, {}, true);
  EXPECT_THROW(scan_record(rec, info), MalformedRecord);
}

}  // namespace
}  // namespace fleet::trace
