// A split call's part (RecordView::key_mask) is decoded with only the keys its mask keeps
// (codecs.h, KeyMask): for every kind that carries keys, the part must equal the whole record
// decoded and then filtered, the keys dropped must still be walked strictly, and a mask made for
// another record is MalformedRecord, with the messages the replay's own check gave before.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fleet/trace/codecs.h"
#include "fleet/trace/errors.h"
#include "fleet/trace/msgpack_writer.h"
#include "fleet/trace/op_decoder.h"
#include "fleet/trace/op_encoder.h"
#include "fleet/trace/record.h"

namespace fleet::trace {
namespace {

ObjectKey key(int i, const std::string& model = "meta-llama/Llama-3.1-8B") {
  ObjectKey k;
  k.chunk_hash = std::string(16, static_cast<char>('a' + i));
  k.model_name = model;
  k.kv_rank = i % 3;
  k.object_group_id = i % 2;
  return k;
}

std::vector<ObjectKey> keys(int n) {
  std::vector<ObjectKey> out;
  for (int i = 0; i < n; ++i) out.push_back(key(i));
  return out;
}

Op op_of(OpKind kind, int n) {
  Op o;
  o.kind = kind;
  o.t_mono = 2.5;
  o.t_wall = 1e9 + 2.5;
  o.layout.shapes = {{4}};
  o.layout.dtypes = {DType::Float16};
  o.read_locks = 2;
  (kind == OpKind::SubmitPrefetch ? o.spec.keys : o.keys) = keys(n);
  if (kind == OpKind::SubmitPrefetch) o.spec.group_layouts[0] = o.layout;
  return o;
}

// The mask bits for `kept` of `n` keys.
std::string mask_of(const std::vector<int>& kept, int n) {
  std::string bits((n + 7) / 8, '\0');
  for (int i : kept) bits[i / 8] = static_cast<char>(bits[i / 8] | (1 << (i % 8)));
  return bits;
}

Op decode(const std::string& body, bool defer, std::string_view mask = {}, uint32_t mask_keys = 0) {
  RecordView rec;
  parse_record(reinterpret_cast<const uint8_t*>(body.data()), body.size(), rec, {}, defer);
  rec.key_mask = mask;
  rec.key_mask_keys = mask_keys;
  Op op;
  decode_op(rec, op);
  return op;
}

TEST(KeyMaskDecode, EachKindKeepsTheMaskedKeysInOrderAsTheWholeDecodeFiltered) {
  const std::vector<std::vector<int>> masks = {{0, 2, 9}, {1, 2, 3, 4, 5, 6, 7, 8, 9}, {9}, {0}};
  const OpKind kinds[] = {OpKind::ReserveWrite,  OpKind::FinishWrite, OpKind::AbortWrite,
                          OpKind::ReadEnter,     OpKind::ReadExit,    OpKind::FinishRead,
                          OpKind::SubmitPrefetch};
  for (const OpKind kind : kinds) {
    for (const Era era : {Era::One, Era::Three}) {
      const std::string body = encode_record_body(op_of(kind, 10), era);
      for (const bool defer : {false, true}) {
        const Op whole = decode(body, defer);
        ASSERT_EQ(whole.op_keys().size(), 10u) << op_kind_name(kind);
        for (const auto& kept : masks) {
          const std::string bits = mask_of(kept, 10);
          const Op part = decode(body, defer, bits, 10);
          std::vector<ObjectKey> expected;
          for (int i : kept) expected.push_back(whole.op_keys()[i]);
          const std::string what = std::string(op_kind_name(kind)) + " era " +
                                   std::to_string(static_cast<int>(era)) + " mask of " +
                                   std::to_string(kept.size());
          EXPECT_EQ(part.op_keys(), expected) << what;
          EXPECT_EQ(part.kind, whole.kind) << what;
          EXPECT_EQ(part.read_locks, whole.read_locks) << what;
          EXPECT_EQ(part.spec.num_kv_readers, whole.spec.num_kv_readers) << what;
          EXPECT_EQ(part.layout.shapes, whole.layout.shapes) << what;
        }
      }
    }
  }
}

TEST(KeyMaskDecode, AMaskMadeForAnotherRecordIsMalformedWithTheReplaysMessages) {
  const std::string body = encode_record_body(op_of(OpKind::SubmitPrefetch, 10), Era::Three);
  auto failure = [&](std::string_view bits, uint32_t n) -> std::string {
    try {
      decode(body, true, bits, n);
    } catch (const MalformedRecord& e) {
      return e.what();
    } catch (const DecodeError& e) {
      return std::string("DecodeError, not MalformedRecord: ") + e.what();
    }
    return "decoded";
  };
  EXPECT_EQ(failure(mask_of({0}, 7), 7), "its key mask covers 7 keys, the record has 10 at byte 0");
  EXPECT_EQ(failure(std::string("\x01", 1), 10),  // 10 keys need two bytes of mask
            "its key mask covers 10 keys, the record has 10 at byte 0");
  EXPECT_EQ(failure(mask_of({}, 10), 10), "its key mask keeps no key at byte 0");
}

// The keys array of a finish_write record, as given, in a frame of its own.
std::string finish_write_with(const std::string& keys_array) {
  std::string body;
  MsgpackWriter w(body);
  w.map(5);
  w.str("type");
  w.str("record");
  w.str("t_mono");
  w.float64(1.0);
  w.str("t_wall");
  w.float64(1e9);
  w.str("qualname");
  w.str("lmcache.v1.distributed.storage_manager.StorageManager.finish_write");
  w.str("args");
  w.map(1);
  w.str("keys");
  return body + keys_array;
}

std::string keys_array(const std::vector<ObjectKey>& ks, bool bad_last) {
  std::string out;
  MsgpackWriter w(out);
  w.array(static_cast<uint32_t>(ks.size() + (bad_last ? 1 : 0)));
  for (const ObjectKey& k : ks) encode_object_key(k, w);
  if (bad_last) {
    w.wrapper("NoSuchType");  // an unknown codec tag: the record's args do not decode
    w.nil();
  }
  return out;
}

TEST(KeyMaskDecode, AKeyTheMaskDropsIsStillWalkedStrictly) {
  // Dropped: an unknown codec tag fails the record as it does without a mask.
  const std::string bad = finish_write_with(keys_array(keys(2), true));
  for (const bool defer : {false, true}) {
    EXPECT_THROW(decode(bad, defer), DecodeError);
    EXPECT_THROW(decode(bad, defer, mask_of({0}, 3), 3), DecodeError) << "defer " << defer;
  }
  // Dropped keys of other models (not the canonical key of the model last seen) are decoded to
  // be walked, and the kept key after them is whole.
  std::vector<ObjectKey> mixed = {key(0, "m-one"), key(1, "m-two"), key(2), key(3, "m-two")};
  const std::string body = finish_write_with(keys_array(mixed, false));
  const Op part = decode(body, true, mask_of({2, 3}, 4), 4);
  ASSERT_EQ(part.keys.size(), 2u);
  EXPECT_EQ(part.keys[0], mixed[2]);
  EXPECT_EQ(part.keys[1], mixed[3]);
}

}  // namespace
}  // namespace fleet::trace
