// LMCache's read-context pairing rules, checked on the calls the engine receives.
#include "fleet/replay/dispatcher.h"

#include <gtest/gtest.h>

#include "recording_engine.h"

namespace fleet::replay {
namespace {

using testing::key;
using testing::RecordingEngine;

trace::Op op(trace::OpKind kind, std::vector<trace::ObjectKey> keys) {
  trace::Op o;
  o.kind = kind;
  o.keys = std::move(keys);
  return o;
}

TEST(Dispatcher, TwoContextsOnTheSameTupleExitFifo) {
  RecordingEngine e;
  Dispatcher d(e);
  d.dispatch(op(trace::OpKind::ReadEnter, {key('a'), key('b')}));
  d.dispatch(op(trace::OpKind::ReadEnter, {key('a'), key('b')}));
  EXPECT_EQ(d.open_contexts(), 2u);
  d.dispatch(op(trace::OpKind::ReadExit, {key('a'), key('b')}));
  EXPECT_EQ(d.open_contexts(), 1u);
  ASSERT_EQ(e.calls.size(), 3u);
  EXPECT_EQ(e.calls[2], "exit:ab");
  d.dispatch(op(trace::OpKind::ReadExit, {key('a'), key('b')}));
  EXPECT_EQ(d.open_contexts(), 0u);
  EXPECT_EQ(d.counters().exits_without_enter, 0u);
}

TEST(Dispatcher, KeyTuplesMatchExactlyIncludingOrder) {
  RecordingEngine e;
  Dispatcher d(e);
  d.dispatch(op(trace::OpKind::ReadEnter, {key('a'), key('b')}));
  auto r = d.dispatch(op(trace::OpKind::ReadExit, {key('b'), key('a')}));
  EXPECT_FALSE(r.failed);  // an unmatched exit counts as replayed
  EXPECT_EQ(d.counters().exits_without_enter, 1u);
  EXPECT_EQ(d.open_contexts(), 1u);
  EXPECT_EQ(e.calls.size(), 1u);  // the engine saw no exit
}

TEST(Dispatcher, ExitWithoutEnterIsAWarningNotAFailure) {
  RecordingEngine e;
  Dispatcher d(e);
  auto r = d.dispatch(op(trace::OpKind::ReadExit, {key('z')}));
  EXPECT_FALSE(r.failed);
  EXPECT_EQ(d.counters().exits_without_enter, 1u);
  EXPECT_TRUE(e.calls.empty());
}

TEST(Dispatcher, DanglingContextsCloseInInsertionOrderFifoWithinATuple) {
  RecordingEngine e;
  Dispatcher d(e);
  d.dispatch(op(trace::OpKind::ReadEnter, {key('b')}));  // #1
  d.dispatch(op(trace::OpKind::ReadEnter, {key('a')}));  // #2
  d.dispatch(op(trace::OpKind::ReadEnter, {key('b')}));  // #3
  e.calls.clear();
  EXPECT_EQ(d.close_dangling(), 3u);
  EXPECT_EQ(e.calls, (std::vector<std::string>{"exit:b", "exit:b", "exit:a"}));
  EXPECT_EQ(d.open_contexts(), 0u);
  EXPECT_EQ(d.counters().dangling_contexts_closed, 3u);
}

TEST(Dispatcher, FinishReadPassesReadLocks) {
  RecordingEngine e;
  Dispatcher d(e);
  auto o = op(trace::OpKind::FinishRead, {key('k')});
  o.read_locks = 3;
  d.dispatch(o);
  EXPECT_EQ(e.calls.back(), "finish_read:k:3");
}

}  // namespace
}  // namespace fleet::replay
