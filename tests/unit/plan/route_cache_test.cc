// Saved routing plans (plan/route_cache.h): what is written is read back exactly; a plan for
// another trace or routing, a damaged or truncated one, or one whose entries leave the trace or
// name a worker the run does not have is refused with the reason, never used.
#include "fleet/plan/route_cache.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "scratch_dir.h"

namespace fleet::plan {
namespace {

using test::ScratchDir;

std::string write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

RouterOptions options(ShardMode mode, int workers) {
  RouterOptions o;
  o.mode = mode;
  o.encode_split_parts = false;
  for (int i = 0; i < workers; ++i) o.worker_names.push_back("local-" + std::to_string(i));
  return o;
}

struct Fixture {
  ScratchDir dir;
  std::string trace = write_file(dir / "t.lct", std::string(10000, 'x'));
  std::string cache = dir / "routes";
  RoutePlanKey key;
  RoutePlanReader::Limits limits;
  Fixture() {
    EXPECT_TRUE(check_route_cache_dir(cache).ok());
    key = route_plan_key(trace, "digest", options(ShardMode::Key, 3), 1u << 20).value();
    limits.trace_size = 10000;
    limits.workers = 3;
    limits.max_frame_bytes = 1u << 20;
  }
  Result<std::unique_ptr<RoutePlanReader>> open() const {
    return RoutePlanReader::open(cache, key, limits);
  }
};

// Why a plan was refused: the error's message; "" when it opened, "(no plan)" when none was saved.
std::string refusal(const Result<std::unique_ptr<RoutePlanReader>>& r) {
  if (!r.ok()) return r.status().message();
  return r.value() ? "" : "(no plan)";
}

Route route(int worker, size_t size, double shift = 0.0, std::string_view mask = {},
            uint16_t keys = 0) {
  static const std::string body(4096, 'b');
  Route r;
  r.worker = worker;
  r.body = std::string_view(body).substr(0, size);
  r.t_shift = shift;
  r.key_mask = mask;
  r.mask_keys = keys;
  return r;
}

// Every kind of entry: a plain route, a split call's masked parts, a shifted route, --shard
// none's all-workers entry; then the metadata.
std::string write_sample(const Fixture& f) {
  auto writer = RoutePlanWriter::create(f.cache, f.key);
  EXPECT_TRUE(writer.ok()) << writer.status().message();
  if (!writer) return "";
  RoutePlanWriter& w = *writer.value();
  w.add(route(1, 100), 0, true, false);
  const std::string m0("\x05", 1), m1("\x0a", 1);
  w.add(route(0, 200, 0.0, m0, 4), 104, true, false);
  w.add(route(2, 200, 0.0, m1, 4), 104, false, false);
  w.add(route(2, 50, 12.5), 308, true, false);
  w.add(route(0, 60), 362, true, true);
  nlohmann::json meta = {{"t_origin", 1.25}, {"records_read", 4}};
  auto saved = w.commit(meta);
  EXPECT_TRUE(saved.ok()) << saved.status().message();
  return saved.ok() ? saved.value() : "";
}

TEST(RouteCache, WhatIsSavedIsReadBackEntryByEntry) {
  Fixture f;
  const std::string path = write_sample(f);
  EXPECT_EQ(path, f.cache + "/" + f.key.file_name);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto opened = f.open();
  ASSERT_EQ(refusal(opened), "");
  auto& r = opened.value();
  EXPECT_EQ(r->entries(), 5u);
  EXPECT_EQ(r->meta()["t_origin"].get<double>(), 1.25);
  RoutePlanReader::Cursor all = r->cursor();
  SavedRoute e;
  ASSERT_TRUE(all.next(e));
  EXPECT_EQ(e.file_offset, 0u);
  EXPECT_EQ(e.body_size, 100u);
  EXPECT_EQ(e.worker, 1);
  EXPECT_EQ(e.flags, kRouteFirstOfRecord);
  ASSERT_TRUE(all.next(e));
  EXPECT_EQ(e.file_offset, 104u);
  EXPECT_EQ(e.worker, 0);
  EXPECT_EQ(e.flags, kRouteFirstOfRecord | kRouteSplitPart | kRouteHasMask);
  EXPECT_EQ(e.mask_keys, 4);
  EXPECT_EQ(e.key_mask, std::string("\x05", 1));
  ASSERT_TRUE(all.next(e));
  EXPECT_EQ(e.worker, 2);
  EXPECT_EQ(e.flags, kRouteSplitPart | kRouteHasMask);
  EXPECT_EQ(e.key_mask, std::string("\x0a", 1));
  ASSERT_TRUE(all.next(e));
  EXPECT_EQ(e.t_shift, 12.5);
  EXPECT_EQ(e.flags, kRouteFirstOfRecord | kRouteHasShift);
  ASSERT_TRUE(all.next(e));
  EXPECT_EQ(e.flags, kRouteFirstOfRecord | kRouteAllWorkers);
  EXPECT_EQ(e.body_size, 60u);
  EXPECT_FALSE(all.next(e));
  EXPECT_EQ(r->entries_read(), 5u);
}

TEST(RouteCache, CursorsAreIndependent) {
  Fixture f;
  write_sample(f);
  auto opened = f.open();
  ASSERT_EQ(refusal(opened), "");
  auto& r = opened.value();
  RoutePlanReader::Cursor a = r->cursor(), b = r->cursor();
  SavedRoute ea, eb;
  ASSERT_TRUE(a.next(ea));
  ASSERT_TRUE(a.next(ea));
  ASSERT_TRUE(b.next(eb));
  EXPECT_EQ(ea.file_offset, 104u);
  EXPECT_EQ(eb.file_offset, 0u);
  // Counted in batches, and whole once each cursor has reached the end.
  while (a.next(ea)) {
  }
  while (b.next(eb)) {
  }
  EXPECT_EQ(r->entries_read(), 10u);
}

TEST(RouteCache, NoPlanIsNotAnError) {
  Fixture f;
  EXPECT_EQ(refusal(f.open()), "(no plan)");
}

TEST(RouteCache, TheKeyNamesTheTraceFileAndEveryRoutingInput) {
  Fixture f;
  const RouterOptions base = options(ShardMode::Key, 3);
  const std::string k = route_plan_key(f.trace, "d", base, 1u << 20)->text;
  EXPECT_EQ(route_plan_key(f.trace, "d", base, 1u << 20)->text, k);  // stable
  EXPECT_NE(route_plan_key(f.trace, "other digest", base, 1u << 20)->text, k);
  EXPECT_NE(route_plan_key(f.trace, "d", base, 2u << 20)->text, k);
  RouterOptions o = base;
  o.mode = ShardMode::Time;
  EXPECT_NE(route_plan_key(f.trace, "d", o, 1u << 20)->text, k);
  o = base;
  o.window_s = 2.5;
  EXPECT_NE(route_plan_key(f.trace, "d", o, 1u << 20)->text, k);
  o = base;
  o.timeline = Timeline::Stack;
  EXPECT_NE(route_plan_key(f.trace, "d", o, 1u << 20)->text, k);
  o = base;
  o.worker_names[2] = "host-c:5555";
  EXPECT_NE(route_plan_key(f.trace, "d", o, 1u << 20)->text, k);
  o = base;
  o.worker_names.pop_back();
  EXPECT_NE(route_plan_key(f.trace, "d", o, 1u << 20)->text, k);
  // The same bytes rewritten: a new modification time (and change time). The file system's
  // clock ticks coarsely (a few ms; a second on some), so write until the time has moved.
  const auto written = std::filesystem::last_write_time(f.trace);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  do {
    write_file(f.trace, std::string(10000, 'x'));
  } while (std::filesystem::last_write_time(f.trace) == written &&
           std::chrono::steady_clock::now() < deadline);
  ASSERT_NE(std::filesystem::last_write_time(f.trace), written)
      << "rewriting the trace left its modification time unchanged for 5 s";
  EXPECT_NE(route_plan_key(f.trace, "d", base, 1u << 20)->text, k);
  const std::string missing = f.dir / "missing.lct";
  EXPECT_EQ(route_plan_key(missing, "d", base, 1u << 20).status().message(),
            missing + ": cannot stat: No such file or directory");
}

TEST(RouteCache, APlanMadeForAnotherKeyIsRefused) {
  Fixture f;
  const std::string path = write_sample(f);
  // Another routing's plan put under this key's file name.
  RoutePlanKey other =
      route_plan_key(f.trace, "digest", options(ShardMode::Time, 3), 1u << 20).value();
  std::filesystem::rename(path, f.cache + "/" + other.file_name);
  EXPECT_NE(refusal(RoutePlanReader::open(f.cache, other, f.limits))
                .find("made for another trace or routing"),
            std::string::npos);
}

TEST(RouteCache, ADamagedOrTruncatedPlanIsRefused) {
  Fixture f;
  const std::string path = write_sample(f);
  const std::string good = read_all(path);
  std::string bad = good;
  bad[f.key.text.size() + 12 + 3] ^= 0x40;  // inside the first entry
  write_file(path, bad);
  EXPECT_NE(refusal(f.open()).find("checksum"), std::string::npos) << refusal(f.open());
  write_file(path, good.substr(0, good.size() - 7));
  EXPECT_NE(refusal(f.open()).find("truncated"), std::string::npos) << refusal(f.open());
  write_file(path, good.substr(0, 10));
  EXPECT_NE(refusal(f.open()).find(path), std::string::npos) << refusal(f.open());
  write_file(path, good);
  EXPECT_EQ(refusal(f.open()), "");
}

TEST(RouteCache, EntriesOutsideTheTraceOrItsWorkersAreRefused) {
  Fixture f;
  write_sample(f);
  RoutePlanReader::Limits small = f.limits;
  small.trace_size = 300;  // the entry at 308 no longer fits
  const std::string why_small = refusal(RoutePlanReader::open(f.cache, f.key, small));
  EXPECT_NE(why_small.find("entry at byte"), std::string::npos) << why_small;
  EXPECT_NE(why_small.find("not inside the trace"), std::string::npos) << why_small;
  RoutePlanReader::Limits two = f.limits;
  two.workers = 2;  // the plan names worker 2
  EXPECT_NE(refusal(RoutePlanReader::open(f.cache, f.key, two)).find("worker 2 of 2"),
            std::string::npos);
  RoutePlanReader::Limits frame = f.limits;
  frame.max_frame_bytes = 150;  // a 200-byte frame is over the reader's limit
  EXPECT_NE(refusal(RoutePlanReader::open(f.cache, f.key, frame)).find("200 bytes"),
            std::string::npos);
}

// A worker opens a plan the coordinator has walked without walking it again: the checksum and
// layout are checked at open, each entry as the cursor reads it (the error names the entry).
TEST(RouteCache, WithoutTheWalkAnEntryOutsideTheLimitsStopsTheCursor) {
  Fixture f;
  write_sample(f);
  RoutePlanReader::Limits two = f.limits;
  two.workers = 2;  // the plan's third entry names worker 2
  two.walk_entries = false;
  auto opened = RoutePlanReader::open(f.cache, f.key, two);
  ASSERT_EQ(refusal(opened), "");
  RoutePlanReader::Cursor c = opened.value()->cursor();
  SavedRoute e;
  ASSERT_TRUE(c.next(e));
  ASSERT_TRUE(c.next(e));
  try {
    c.next(e);
    ADD_FAILURE() << "an entry for worker 2 of 2 was returned";
  } catch (const std::runtime_error& err) {
    EXPECT_NE(std::string(err.what()).find("worker 2 of 2"), std::string::npos) << err.what();
  }
  // The checksum is still checked at open.
  const std::string path = f.cache + "/" + f.key.file_name;
  std::string bad = read_all(path);
  bad[f.key.text.size() + 12 + 3] ^= 0x40;
  write_file(path, bad);
  EXPECT_NE(refusal(RoutePlanReader::open(f.cache, f.key, two)).find("checksum"),
            std::string::npos);
}

TEST(RouteCache, AnOffsetThatWouldWrapAroundIsRefused) {
  Fixture f;
  {
    auto w = RoutePlanWriter::create(f.cache, f.key).value();
    w->add(route(1, 100), ~uint64_t{0} - 10, true, false);  // offset + length wraps past 2^64
    ASSERT_TRUE(w->commit(nlohmann::json::object()).ok());
  }
  EXPECT_NE(refusal(f.open()).find("not inside the trace"), std::string::npos) << refusal(f.open());
}

TEST(RouteCache, APlanOthersCouldHaveWrittenIsRefused) {
  Fixture f;
  const std::string path = write_sample(f);
  ::chmod(path.c_str(), 0620);
  EXPECT_NE(refusal(f.open()).find("writable by group or others"), std::string::npos)
      << refusal(f.open());
  ::chmod(path.c_str(), 0600);
  EXPECT_EQ(refusal(f.open()), "");
}

TEST(RouteCache, AnUncommittedOrAbandonedPlanLeavesNothingBehind) {
  Fixture f;
  {
    auto w = RoutePlanWriter::create(f.cache, f.key).value();
    w->add(route(1, 100), 0, true, false);
  }  // the run stopped early: never committed
  {
    auto w = RoutePlanWriter::create(f.cache, f.key).value();
    Route inline_part = route(1, 100);
    inline_part.original = false;  // a re-encoded part has no place in the trace
    w->add(inline_part, 0, true, false);
    EXPECT_TRUE(w->abandoned());
    auto saved = w->commit(nlohmann::json::object());
    EXPECT_FALSE(saved.ok());
    EXPECT_NE(saved.status().message().find("re-encoded"), std::string::npos);
  }
  EXPECT_TRUE(std::filesystem::is_empty(f.cache));
}

TEST(RouteCache, AWriterInADirectoryThatIsGoneIsAnErrorNamingTheFile) {
  Fixture f;
  const std::string gone = f.cache + "/gone";
  const auto w = RoutePlanWriter::create(gone, f.key);
  ASSERT_FALSE(w.ok());
  const std::string& why = w.status().message();  // mkstemp fills in the X's even when it fails
  EXPECT_EQ(why.rfind(gone + "/." + f.key.file_name + ".", 0), 0u) << why;
  EXPECT_TRUE(why.ends_with(": cannot create: No such file or directory")) << why;
}

TEST(RouteCache, TheDirectoryMustBeThisUsersAndPrivate) {
  ScratchDir dir;
  const std::string fresh = dir / "new";
  ASSERT_TRUE(check_route_cache_dir(fresh).ok());
  struct stat st {};
  ASSERT_EQ(::stat(fresh.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ::chmod(fresh.c_str(), 0777);
  Status open_to_all = check_route_cache_dir(fresh);
  EXPECT_FALSE(open_to_all.ok());
  EXPECT_NE(open_to_all.message().find("--route-cache " + fresh), std::string::npos);
  EXPECT_NE(open_to_all.message().find("chmod 700"), std::string::npos);
  const std::string file = write_file(dir / "plain", "x");
  Status not_dir = check_route_cache_dir(file);
  EXPECT_FALSE(not_dir.ok());
  EXPECT_NE(not_dir.message().find("not a directory"), std::string::npos);
  Status no_parent = check_route_cache_dir(dir / "a/b/c");
  EXPECT_FALSE(no_parent.ok());
  EXPECT_NE(no_parent.message().find("cannot create"), std::string::npos);
}

}  // namespace
}  // namespace fleet::plan
