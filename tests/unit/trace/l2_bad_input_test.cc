// L2 traces built by hand: the worked example of the L2 spec decodes into every record kind, the
// fork's variants are accepted (layout_desc, decimal group keys, keys without cache_salt, schema
// 1), and each damaged input gives its named error or lint finding. The batch reader (a thread
// decoding ahead) gives the same records and the same errors as the plain reader.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <span>
#include <thread>

#include "fleet/trace/codecs.h"
#include "fleet/trace/errors.h"
#include "fleet/trace/l2_batch_reader.h"
#include "fleet/trace/l2_checks.h"
#include "fleet/trace/l2_reader.h"
#include "scratch_dir.h"
#include "trace_test_bytes.h"

namespace fleet::trace {
namespace {

using namespace testing;
using Put = std::function<void(MsgpackWriter&)>;
using Args = std::vector<std::pair<std::string, Put>>;

Put num(int64_t v) {
  return [v](MsgpackWriter& w) { w.integer(v); };
}
Put text(std::string s) {
  return [s](MsgpackWriter& w) { w.str(s); };
}
Put ints(std::vector<int64_t> v) {
  return [v](MsgpackWriter& w) {
    w.array(static_cast<uint32_t>(v.size()));
    for (int64_t i : v) w.integer(i);
  };
}
Put key_k() {
  return [](MsgpackWriter& w) { encode_object_keys({test_key(7)}, w); };
}
Put layout_4096() {
  return [](MsgpackWriter& w) {
    MemoryLayout l;
    l.shapes = {{4096}};
    l.dtypes = {DType::UInt8};
    encode_layout(l, w);
  };
}

// Arg names as str8 (0xd9, length, bytes) instead of the fixstr LMCache's encoder writes: valid
// msgpack the decoder's shortcut for the canonical names does not match.
bool str8_arg_names = false;

std::string l2_frame(std::string_view qualname, const Args& args, double t = 1.0) {
  return frame_bytes(record_body_with_args(
      qualname,
      [&](MsgpackWriter& w, std::string& raw) {
        w.map(static_cast<uint32_t>(args.size()));
        for (const auto& [name, put] : args) {
          if (str8_arg_names) {
            raw += static_cast<char>(0xd9);
            raw += static_cast<char>(name.size());
            raw += name;
          } else {
            w.str(name);
          }
          put(w);
        }
      },
      t));
}

std::string l2_header(int64_t schema = 2) {
  Header h;
  h.level = "l2";
  h.trace_schema_version = schema;
  return header_frame(h);
}

Args task(int64_t rid, int64_t id) {
  Args a;
  if (rid >= 0) a.emplace_back("request_id", num(rid));
  a.emplace_back("adapter_index", num(0));
  a.emplace_back("task_id", num(id));
  a.emplace_back("l2_name", text("mock"));
  return a;
}
Args with(Args a, const Args& more) {
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

std::string store_pair() {
  return l2_frame("l2.store.submitted",
                  with(task(-1, 1), {{"keys", key_k()}, {"object_sizes", ints({4096})}})) +
         l2_frame("l2.store.completed", with(task(-1, 1), {{"bytes_transferred", num(4096)},
                                                           {"succeeded_count", num(1)},
                                                           {"failed_count", num(0)}}));
}
std::string end_marker(int64_t recorder = 0, int64_t bus = 0) {
  return l2_frame("l2.trace.end", {{"recorder_dropped_count", num(recorder)},
                                   {"event_bus_dropped_count", num(bus)}});
}
// The L2 spec's worked example: store, lookup, load, unlock of one key K, then the end marker.
std::string worked_example(const Put& layout_arg = layout_4096(),
                           const char* layout_name = "layout_desc") {
  return l2_header() + store_pair() +
         l2_frame("l2.lookup_task.submitted",
                  with(task(11, 2), {{"keys", key_k()}, {layout_name, layout_arg}})) +
         l2_frame("l2.lookup_task.completed", with(task(11, 2), {{"hit_indices", ints({0})}})) +
         l2_frame("l2.load_task.submitted",
                  with(task(11, 3), {{"keys", key_k()}, {"object_sizes", ints({4096})}})) +
         l2_frame("l2.load_task.completed", with(task(11, 3), {{"success_indices", ints({0})}})) +
         l2_frame("l2.unlock.submitted", {{"request_id", num(11)},
                                          {"adapter_index", num(0)},
                                          {"l2_name", text("mock")},
                                          {"keys", key_k()}}) +
         end_marker();
}

std::string write_trace(const std::string& name, const std::string& bytes) {
  std::string path = fleet::test::test_scratch_dir() / name;
  write_bytes(path, bytes);
  return path;
}

struct Collect final : Reporter {
  void warning(uint64_t o, std::string_view w) override { items.emplace_back(o, std::string(w)); }
  std::vector<std::pair<uint64_t, std::string>> items;
};

// Reads `bytes` as an L2 trace through the lint checks.
L2Checks lint(const std::string& name, const std::string& bytes) {
  Collect rep;
  ReaderOptions ro;
  ro.reporter = &rep;
  L2Reader reader(write_trace(name, bytes), ro);
  L2Checks checks;
  L2Record r;
  try {
    while (reader.next(r)) checks.add(r);
  } catch (const TraceError& e) {
    checks.unreadable(0, e.what());
  }
  checks.finish(rep.items);
  return checks;
}

std::vector<L2Record> read_all(const std::string& path) {
  L2Reader reader(path);
  std::vector<L2Record> out;
  L2Record r;
  while (reader.next(r)) out.push_back(r);
  return out;
}

TEST(L2Read, WorkedExampleDecodesEveryKind) {
  auto recs = read_all(write_trace("worked", worked_example()));
  ASSERT_EQ(recs.size(), 8u);
  EXPECT_EQ(recs[0].kind, L2Kind::StoreSubmitted);
  EXPECT_EQ(recs[0].task_key(), (L2TaskKey{L2Op::Store, 0, 1}));
  EXPECT_EQ(recs[0].object_bytes(), 4096);
  EXPECT_EQ(recs[1].succeeded_count, 1);
  EXPECT_EQ(recs[2].kind, L2Kind::LookupSubmitted);
  EXPECT_EQ(recs[2].request_id, 11);
  ASSERT_EQ(recs[2].group_layouts.count(0), 1u);
  EXPECT_EQ(recs[2].group_layouts.at(0).object_bytes(), 4096u);
  EXPECT_TRUE(recs[2].legacy_layout_desc);
  EXPECT_EQ(recs[3].indices, (std::vector<int64_t>{0}));
  EXPECT_EQ(recs[5].kind, L2Kind::LoadCompleted);
  EXPECT_EQ(recs[6].kind, L2Kind::UnlockSubmitted);
  EXPECT_FALSE(recs[6].task_id.has_value());
  EXPECT_EQ(recs[7].kind, L2Kind::TraceEnd);
  EXPECT_EQ(recs[7].sequence, 7u);
}

// Each qualname of the spec is its kind, and nothing else is: names of the same length, with
// the other ending or one letter changed, are Unknown (the classifier picks by length and one
// letter before it compares).
TEST(L2Read, QualnamesAreClassifiedExactly) {
  for (int i = 0; i < kL2KindCount - 1; ++i) {
    const auto kind = static_cast<L2Kind>(i);
    const std::string q(l2_qualname(kind));
    EXPECT_EQ(l2_kind_from_qualname(q), kind) << q;
    for (size_t at = 0; at < q.size(); ++at) {
      std::string changed = q;
      changed[at] = changed[at] == 'x' ? 'y' : 'x';
      EXPECT_EQ(l2_kind_from_qualname(changed), L2Kind::Unknown) << changed;
    }
    EXPECT_EQ(l2_kind_from_qualname(q + "d"), L2Kind::Unknown);
    EXPECT_EQ(l2_kind_from_qualname(q.substr(1)), L2Kind::Unknown);
  }
  for (const char* q : {"", "l", "l2.store", "l2.store.submittex", "l2.lookup_task.complete_",
                        "l2.unlock.completed", "l2.delete.completed", "l2.trace.beg"})
    EXPECT_EQ(l2_kind_from_qualname(q), L2Kind::Unknown) << q;
}

// l2_name is kept from record to record by the decoder (compared, not re-assigned): a record
// without it still reads as "", and one naming another adapter as that one.
TEST(L2Read, AnL2NameIsNeverCarriedIntoARecordWithoutOne) {
  const std::string bytes =
      l2_header() + store_pair() +
      l2_frame("l2.unlock.submitted",
               {{"request_id", num(11)}, {"adapter_index", num(0)}, {"keys", key_k()}}) +
      l2_frame("l2.unlock.submitted", {{"request_id", num(11)},
                                       {"adapter_index", num(0)},
                                       {"l2_name", text("redis")},
                                       {"keys", key_k()}}) +
      end_marker();
  const auto recs = read_all(write_trace("l2_names", bytes));
  ASSERT_EQ(recs.size(), 5u);
  EXPECT_EQ(recs[0].l2_name, "mock");
  EXPECT_EQ(recs[1].l2_name, "mock");
  EXPECT_EQ(recs[2].l2_name, "");
  EXPECT_EQ(recs[3].l2_name, "redis");
  EXPECT_EQ(recs[4].l2_name, "");
}

// The same records whether the arg names are in their canonical encoding (matched by their
// bytes) or in another valid one (read and compared as names).
TEST(L2Read, ArgNamesInAnyStrEncodingDecodeAlike) {
  const auto canonical = read_all(write_trace("fixstr", worked_example()));
  const Put group3 = [](MsgpackWriter& w) {
    w.map(1);
    w.integer(3);
    layout_4096()(w);
  };
  str8_arg_names = true;
  const std::string other = worked_example(group3, "group_layout_descs");
  const std::string legacy = worked_example();
  str8_arg_names = false;
  const auto str8 = read_all(write_trace("str8", legacy));
  ASSERT_EQ(str8.size(), canonical.size());
  for (size_t i = 0; i < str8.size(); ++i) {
    const L2Record &a = canonical[i], &b = str8[i];
    EXPECT_EQ(a.kind, b.kind) << i;
    EXPECT_EQ(a.task_key(), b.task_key()) << i;
    EXPECT_EQ(a.request_id, b.request_id) << i;
    EXPECT_EQ(a.l2_name, b.l2_name) << i;
    EXPECT_EQ(a.keys, b.keys) << i;
    EXPECT_EQ(a.object_sizes, b.object_sizes) << i;
    EXPECT_EQ(a.indices, b.indices) << i;
    EXPECT_EQ(a.group_layouts, b.group_layouts) << i;
    EXPECT_EQ(a.legacy_layout_desc, b.legacy_layout_desc) << i;
    EXPECT_EQ(a.bytes_transferred, b.bytes_transferred) << i;
    EXPECT_EQ(a.succeeded_count, b.succeeded_count) << i;
    EXPECT_EQ(a.failed_count, b.failed_count) << i;
  }
  EXPECT_EQ(str8[0].l2_name, "mock");
  EXPECT_EQ(str8[3].indices, (std::vector<int64_t>{0}));
  const auto groups = read_all(write_trace("str8groups", other));
  ASSERT_EQ(groups[2].group_layouts.count(3), 1u);
  EXPECT_EQ(groups[2].group_layouts.at(3).object_bytes(), 4096u);
  EXPECT_FALSE(groups[2].legacy_layout_desc);
}

TEST(L2Read, GroupLayoutDescsWithIntOrDecimalKeys) {
  for (bool decimal : {false, true}) {
    Put groups = [decimal](MsgpackWriter& w) {
      w.map(1);
      decimal ? w.str("3") : w.integer(3);
      layout_4096()(w);
    };
    auto recs = read_all(write_trace("groups", worked_example(groups, "group_layout_descs")));
    EXPECT_EQ(recs[2].group_layouts.count(3), 1u);
    EXPECT_FALSE(recs[2].legacy_layout_desc);
  }
}

TEST(L2Read, SchemaOneAndKeysWithoutSalt) {
  Put old_key = [](MsgpackWriter& w) {
    ObjectKey k = test_key(7);
    w.array(1);
    encode_object_key(k, w, /*schema=*/1);  // no cache_salt
  };
  std::string bytes = l2_header(1) +
                      l2_frame("l2.delete.submitted", {{"adapter_index", num(-1)},
                                                       {"l2_name", text("MockL2Adapter")},
                                                       {"keys", old_key}}) +
                      end_marker();
  auto recs = read_all(write_trace("schema1", bytes));
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[0].adapter_index, -1);
  EXPECT_EQ(recs[0].keys[0].cache_salt, "");
}

TEST(L2Read, StorageTraceIsRefusedNamingFileAndLevel) {
  std::string path = write_trace("storage", header_frame());
  try {
    L2Reader reader(path);
    FAIL() << "a storage trace was read as L2";
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("level is \"storage\""), std::string::npos) << e.what();
  }
}

TEST(L2Read, OversizeCountIsAMalformedFrameAtItsOffset) {
  Put huge = [](MsgpackWriter& w) { w.array(0x7fffffff); };  // no elements follow
  const std::string head = l2_header() + store_pair();
  L2Checks c =
      lint("oversize",
           head +
               l2_frame("l2.unlock.submitted",
                        {{"request_id", num(1)}, {"adapter_index", num(0)}, {"keys", huge}}) +
               end_marker());
  const L2Finding& f = c.finding("malformed");
  ASSERT_EQ(f.count, 1u);
  EXPECT_EQ(f.offsets[0], head.size());
  EXPECT_NE(f.messages[0].find("exceeds the element limit"), std::string::npos) << f.messages[0];
  ReaderCounters counters;
  counters.malformed_skipped = 1;
  auto why = l2_refusals(c.summary(), counters);
  ASSERT_EQ(why.size(), 1u);
  EXPECT_NE(why[0].find("1 malformed frame(s) skipped"), std::string::npos) << why[0];
}

// The reader checks a frame's args while decoding them (one walk): a frame msgspec would refuse
// is still skipped and counted as malformed at its offset, never an args error, even where its
// args would not decode either (the unlock below also lacks its keys).
TEST(L2Read, InvalidUtf8InArgsIsAMalformedFrameNotAnArgsError) {
  const std::string head = l2_header() + store_pair();
  const std::string bad =
      l2_frame("l2.unlock.submitted", {{"request_id", num(1)},
                                       {"adapter_index", num(0)},
                                       {"l2_name", text(std::string("mo\xff") + "ck")}});
  L2Checks c = lint("utf8", head + bad + end_marker());
  const L2Finding& f = c.finding("malformed");
  ASSERT_EQ(f.count, 1u);
  EXPECT_EQ(f.offsets[0], head.size());
  EXPECT_NE(f.messages[0].find("not valid UTF-8"), std::string::npos) << f.messages[0];
  EXPECT_EQ(c.finding("missing_end_marker").count, 0u);
}

// A time that is not finite would become an undefined instant in the pacer (and NaN in the
// stats): the frame is malformed, at its offset, as any envelope the recorder cannot write.
TEST(L2Read, NonFiniteTimesAreMalformedFrames) {
  const std::string head = l2_header() + store_pair();
  for (double t : {std::nan(""), HUGE_VAL}) {
    const std::string bad =
        l2_frame("l2.unlock.submitted",
                 {{"request_id", num(1)}, {"adapter_index", num(0)}, {"keys", key_k()}}, t);
    L2Checks c = lint("nan-time", head + bad + end_marker());
    const L2Finding& f = c.finding("malformed");
    ASSERT_EQ(f.count, 1u) << t;
    EXPECT_EQ(f.offsets[0], head.size());
    EXPECT_NE(f.messages[0].find("t_mono is not finite"), std::string::npos) << f.messages[0];
  }
}

// What a record's numbers describe must be a size: a key count the frame's bytes cannot hold
// (each key ~72 bytes decoded, so 2^24 nils were 1.2 GB), a negative or overflowing layout
// (silently 0 bytes before), object sizes whose sum passes 2^63 (a negative total before).
TEST(L2Read, CountsAndSizesBeyondTheirBytesAreRefusedByName) {
  auto refused = [](const std::string& name, const std::string& frame, const std::string& what) {
    const std::string path = write_trace(name, l2_header() + frame + end_marker());
    try {
      read_all(path);
      ADD_FAILURE() << name << ": accepted";
    } catch (const TraceError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  Put nils = [](MsgpackWriter& w) {
    w.array(100000);
    for (int i = 0; i < 100000; ++i) w.nil();
  };
  refused("key-count",
          l2_frame("l2.unlock.submitted",
                   {{"request_id", num(1)}, {"adapter_index", num(0)}, {"keys", nils}}),
          "keys: 100000 keys cannot fit in the 100000 bytes left");
  auto lookup_with = [](std::vector<std::vector<int64_t>> shapes) {
    Put layout = [shapes](MsgpackWriter& w) {
      MemoryLayout l;
      l.shapes = shapes;
      l.dtypes.assign(shapes.size(), DType::UInt8);
      encode_layout(l, w);
    };
    return l2_frame("l2.lookup_task.submitted",
                    with(task(11, 2), {{"keys", key_k()}, {"layout_desc", layout}}));
  };
  refused("negative-dim", lookup_with({{-4096}}), "MemoryLayoutDesc has a negative dimension");
  refused("dim-overflow", lookup_with({{int64_t{1} << 32, int64_t{1} << 32}}),
          "MemoryLayoutDesc describes more than 2^64 bytes");
  refused("layout-sum", lookup_with({{int64_t{1} << 62}, {int64_t{1} << 62}}),
          "MemoryLayoutDesc describes more than 2^63 bytes");
  Put two_keys = [](MsgpackWriter& w) { encode_object_keys({test_key(7), test_key(8)}, w); };
  refused("size-sum",
          l2_frame("l2.store.submitted",
                   with(task(-1, 1),
                        {{"keys", two_keys}, {"object_sizes", ints({INT64_MAX, INT64_MAX})}})),
          "object_sizes sum past 2^63 bytes");
}

TEST(L2Read, MissingArgNamesFileRecordAndOffset) {
  const std::string head = l2_header() + store_pair();
  std::string path = write_trace(
      "missing",
      head + l2_frame("l2.unlock.submitted", {{"request_id", num(1)}, {"adapter_index", num(0)}}));
  try {
    read_all(path);
    FAIL() << "an unlock without keys was accepted";
  } catch (const TraceError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path + ": record 2 at offset " + std::to_string(head.size())),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("l2.unlock.submitted args: lacks keys"), std::string::npos) << what;
  }
}

TEST(L2Read, OversizeFramePrefixNamesOffset) {
  std::string bytes = l2_header() + prefix_bytes(100u << 20) + "x";
  try {
    read_all(write_trace("prefix", bytes));
    FAIL();
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("frame at offset " + std::to_string(l2_header().size())),
              std::string::npos)
        << e.what();
  }
}

TEST(L2Read, UnknownCodecTagAbortsUnknownQualnameIsIgnored) {
  Put bad = [](MsgpackWriter& w) {
    w.wrapper("NotACodec");
    w.integer(1);
  };
  EXPECT_THROW(read_all(write_trace("tag", l2_header() + l2_frame("l2.future.kind", {{"x", bad}}))),
               TraceError);
  L2Checks c =
      lint("unknown", l2_header() + l2_frame("l2.future.kind", {{"x", num(1)}}) + end_marker());
  EXPECT_EQ(c.finding("unknown_qualname").count, 1u);
  EXPECT_EQ(c.summary().ignored_by_qualname.at("l2.future.kind"), 1u);
  EXPECT_EQ(c.problems(), 0u);
}

TEST(L2Lint, TruncatedFrameIsAMissingEndMarker) {
  std::string whole = worked_example();
  std::string bytes = whole.substr(0, whole.size() - end_marker().size() * 2 + 5);
  L2Checks c = lint("truncated", bytes);
  EXPECT_EQ(c.finding("truncated_tail").count, 1u);
  EXPECT_EQ(c.finding("missing_end_marker").count, 1u);
  ReaderCounters counters;
  counters.truncated_tail = true;
  auto why = l2_refusals(c.summary(), counters);
  ASSERT_FALSE(why.empty());
  EXPECT_NE(why[0].find("incomplete L2 trace: missing end marker"), std::string::npos);
}

TEST(L2Lint, DuplicatedEndMarkerAndDrops) {
  L2Checks c = lint("dup", worked_example());
  EXPECT_EQ(c.finding("duplicate_end_marker").count, 0u);
  c = lint("dup2", worked_example() + end_marker());
  EXPECT_EQ(c.finding("duplicate_end_marker").count, 1u);
  EXPECT_EQ(l2_refusals(c.summary(), {})[0], "invalid L2 trace: duplicate end marker");
  c = lint("drops", l2_header() + store_pair() + end_marker(2, 3));
  EXPECT_EQ(c.finding("drops").count, 1u);
  EXPECT_EQ(l2_refusals(c.summary(), {})[0],
            "incomplete L2 trace: recorder_dropped=2, event_bus_dropped=3");
}

TEST(L2Lint, CompletionWithoutSubmission) {
  std::string completion =
      l2_frame("l2.lookup_task.completed", with(task(5, 9), {{"hit_indices", ints({})}}));
  L2Checks c = lint("orphan", l2_header() + completion + end_marker());
  EXPECT_EQ(c.finding("completion_without_submission").count, 1u);
  EXPECT_GT(c.problems(), 0u);
}

TEST(L2Lint, ForwardEdgeIsANoteNotAProblem) {
  // Unlock batch (a): the hits outside the load plan are released before the load.
  std::string unlock =
      l2_frame("l2.unlock.submitted",
               {{"request_id", num(11)}, {"adapter_index", num(0)}, {"keys", key_k()}});
  std::string w = worked_example();
  std::string load_at =
      l2_frame("l2.load_task.submitted",
               with(task(11, 3), {{"keys", key_k()}, {"object_sizes", ints({4096})}}));
  w.insert(w.find(load_at), unlock);
  L2Checks c = lint("forward", w);
  EXPECT_EQ(c.finding("forward_edges").count, 1u);
  EXPECT_EQ(c.problems(), 0u);
}

// One request id over 20,000 unlocks and then 20,000 loads: 400 million forward edges, counted
// (as the plan counts edges) without being walked pair by pair, one example per record.
TEST(L2Lint, ForwardEdgesOfOneSharedRequestAreCountedNotWalked) {
  std::string bytes = l2_header();
  for (int i = 0; i < 20000; ++i)
    bytes += l2_frame("l2.unlock.submitted",
                      {{"request_id", num(11)}, {"adapter_index", num(0)}, {"keys", key_k()}});
  for (int i = 0; i < 20000; ++i)
    bytes += l2_frame("l2.load_task.submitted",
                      with(task(11, 100 + i), {{"keys", key_k()}, {"object_sizes", ints({4096})}}));
  L2Checks c = lint("shared-request", bytes + end_marker());
  const L2Finding& f = c.finding("forward_edges");
  EXPECT_EQ(f.count, 400000000u);
  EXPECT_LE(f.messages.size(), 20u);
  ASSERT_FALSE(f.messages.empty());
  EXPECT_EQ(f.messages[0], "unlock of request 11 precedes its load");
}

TEST(L2Lint, SeveralSourceAdapters) {
  std::string other = l2_frame("l2.store.submitted", {{"adapter_index", num(1)},
                                                      {"task_id", num(1)},
                                                      {"keys", key_k()},
                                                      {"object_sizes", ints({4096})}});
  L2Checks c = lint("adapters", l2_header() + store_pair() + other + end_marker());
  EXPECT_EQ(c.finding("several_source_adapters").count, 1u);
}

// Records through the batch reader, in order; what it threw (empty when nothing).
std::string read_batches(const std::string& path, size_t batch, size_t batches,
                         std::vector<L2Record>& out) {
  try {
    L2BatchReader reader(path, {}, batch, batches);
    for (auto b = reader.next_batch(); !b.empty(); b = reader.next_batch())
      out.insert(out.end(), b.begin(), b.end());
  } catch (const TraceError& e) {
    return e.what();
  }
  return "";
}

std::string many_stores(int pairs) {
  std::string bytes = l2_header();
  for (int i = 0; i < pairs; ++i) bytes += store_pair();
  return bytes;
}

TEST(L2BatchRead, SameRecordsInOrderAsThePlainReader) {
  const std::string path = write_trace("batches", many_stores(500) + end_marker());
  const std::vector<L2Record> plain = read_all(path);
  ASSERT_EQ(plain.size(), 1001u);
  for (size_t batch : {1, 7, 512, 5000}) {
    std::vector<L2Record> got;
    EXPECT_EQ(read_batches(path, batch, 3, got), "");
    ASSERT_EQ(got.size(), plain.size()) << batch;
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].sequence, plain[i].sequence);
      EXPECT_EQ(got[i].file_offset, plain[i].file_offset);
      EXPECT_EQ(got[i].kind, plain[i].kind);
      EXPECT_EQ(got[i].keys, plain[i].keys);
      EXPECT_EQ(got[i].object_sizes, plain[i].object_sizes);
    }
  }
}

TEST(L2BatchRead, ErrorComesAfterEveryRecordBeforeItWithTheSameText) {
  const std::string head = many_stores(300);
  const std::string path = write_trace(
      "batch_error",
      head + l2_frame("l2.unlock.submitted", {{"request_id", num(1)}, {"adapter_index", num(0)}}) +
          end_marker());
  std::string plain_error;
  try {
    read_all(path);
  } catch (const TraceError& e) {
    plain_error = e.what();
  }
  ASSERT_NE(plain_error.find("record 600 at offset " + std::to_string(head.size())),
            std::string::npos)
      << plain_error;
  for (size_t batch : {1, 64, 600, 1000}) {
    std::vector<L2Record> got;
    EXPECT_EQ(read_batches(path, batch, 2, got), plain_error) << batch;
    EXPECT_EQ(got.size(), 600u) << batch;
  }
}

// `prepare` sees each batch once, on the decoding thread, before the caller does, in the slot
// slot() names; a slot is not prepared again while the caller still reads its batch. Here it
// records each batch's first sequence per slot, and the caller checks it against the batch.
TEST(L2BatchRead, EachBatchIsPreparedInItsSlotBeforeTheCallerSeesIt) {
  const std::string path = write_trace("batch_prepare", many_stores(500) + end_marker());
  constexpr size_t kBatches = 3;
  std::vector<uint64_t> first_of_slot(kBatches, UINT64_MAX);
  std::vector<size_t> count_of_slot(kBatches, 0);
  const std::thread::id caller = std::this_thread::get_id();
  bool off_thread = true;
  L2BatchReader reader(path, {}, 7, kBatches, [&](size_t slot, std::span<const L2Record> r) {
    off_thread = off_thread && std::this_thread::get_id() != caller;
    first_of_slot.at(slot) = r.front().sequence;
    count_of_slot.at(slot) = r.size();
  });
  size_t records = 0;
  for (auto b = reader.next_batch(); !b.empty(); b = reader.next_batch()) {
    EXPECT_EQ(first_of_slot[reader.slot()], b.front().sequence) << records;
    EXPECT_EQ(count_of_slot[reader.slot()], b.size()) << records;
    records += b.size();
  }
  EXPECT_EQ(records, 1001u);
  EXPECT_TRUE(off_thread);
}

// What prepare throws reaches the caller after the batches before it, and that batch is not
// handed out unprepared.
TEST(L2BatchRead, WhatPrepareThrowsReachesTheCallerAfterTheBatchesBeforeIt) {
  const std::string path = write_trace("batch_prepare_throws", many_stores(100) + end_marker());
  L2BatchReader reader(path, {}, 10, 2, [](size_t, std::span<const L2Record> r) {
    if (r.front().sequence >= 50) throw TraceError("prepare refused record 50");
  });
  size_t records = 0;
  std::string error;
  try {
    for (auto b = reader.next_batch(); !b.empty(); b = reader.next_batch()) records += b.size();
  } catch (const TraceError& e) {
    error = e.what();
  }
  EXPECT_EQ(records, 50u);
  EXPECT_EQ(error, "prepare refused record 50");
}

TEST(L2BatchRead, StorageTraceIsRefusedOnTheCallersThread) {
  const std::string path = write_trace("batch_storage", header_frame());
  std::vector<L2Record> got;
  EXPECT_NE(read_batches(path, 16, 2, got).find("level is \"storage\""), std::string::npos);
}

TEST(L2BatchRead, LeavingEarlyStopsTheThread) {
  const std::string path = write_trace("batch_early", many_stores(2000) + end_marker());
  L2BatchReader reader(path, {}, 8, 2);
  EXPECT_EQ(reader.next_batch().size(), 8u);
}  // joins: a reader blocked on a full ring must wake and stop

}  // namespace
}  // namespace fleet::trace
