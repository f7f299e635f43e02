// ARC (`--eviction-policy ARC`, LMCache's arc.py semantics), worked by hand: reverse-batch
// insertion into T1, promotion to T2 on touch, ghosts only for confirmed victims, the target p
// moved by re-created ghosts, and victim selection around int(p).
#include <gtest/gtest.h>

#include "fleet/engine/arc_policy.h"
#include "storage_test_util.h"

namespace fleet::storage {
namespace {
using namespace testing;
using L = ArcPolicy::List;

TEST(Arc, GhostFeedbackMovesTheT1Target) {
  ArcPolicy arc;
  arc.on_keys_created(Keys({"A", "B", "C", "D"}));
  EXPECT_EQ(arc.list(L::T1), Keys({"D", "C", "B", "A"}));  // reverse: D is the oldest
  EXPECT_EQ(arc.capacity(), 4u);
  arc.on_keys_touched(Keys({"B", "Z"}));  // Z is unknown: ignored
  EXPECT_EQ(arc.list(L::T1), Keys({"D", "C", "A"}));
  EXPECT_EQ(arc.list(L::T2), Keys({"B"}));

  // int(4 * 0.5) = 2 victims; p = 0 so T1 goes first.
  EXPECT_EQ(arc.get_eviction_victims(0.5, {}), Keys({"D", "C"}));
  EXPECT_EQ(arc.tracked(), 4u);  // nothing changes until the removal is confirmed
  arc.on_keys_removed(Keys({"D", "C"}));
  EXPECT_EQ(arc.list(L::B1), Keys({"D", "C"}));
  EXPECT_EQ(arc.tracked(), 2u);

  // C comes back: a B1 hit grows p by max(1, |B2|/|B1|) = max(1, 0/2) = 1; C lands in T2.
  arc.on_keys_created(Keys({"C"}));
  EXPECT_DOUBLE_EQ(arc.target_t1(), 1.0);
  EXPECT_EQ(arc.list(L::T2), Keys({"B", "C"}));
  EXPECT_EQ(arc.list(L::B1), Keys({"D"}));

  // 3 resident -> 1 victim. |T1| = 1 >= int(p) = 1 would take A, but the filter refuses it:
  // T2's oldest, B, is next.
  auto not_a = [](const trace::ObjectKey& k) { return k != K("A"); };
  EXPECT_EQ(arc.get_eviction_victims(0.5, not_a), Keys({"B"}));
  arc.on_keys_removed(Keys({"B"}));
  EXPECT_EQ(arc.list(L::B2), Keys({"B"}));

  // B comes back from B2: p shrinks by max(1, |B1|/|B2|) = 1 to 0.
  arc.on_keys_created(Keys({"B"}));
  EXPECT_DOUBLE_EQ(arc.target_t1(), 0.0);
  EXPECT_EQ(arc.list(L::T2), Keys({"C", "B"}));
  EXPECT_EQ(arc.get_eviction_victims(0.5, {}), Keys({"A"}));
}

TEST(Arc, RemovalsThatAreNotVictimsLeaveNoGhost) {
  ArcPolicy arc;
  arc.on_keys_created(Keys({"A", "B"}));
  arc.on_keys_removed(Keys({"A"}));  // e.g. a delete by the application: forgotten
  EXPECT_TRUE(arc.list(L::B1).empty());
  EXPECT_EQ(arc.list(L::T1), Keys({"B"}));
  // A chosen victim that is re-created before its removal is no longer pending.
  EXPECT_EQ(arc.get_eviction_victims(1.0, {}), Keys({"B"}));
  arc.on_keys_created(Keys({"B"}));
  arc.on_keys_removed(Keys({"B"}));
  EXPECT_TRUE(arc.list(L::B2).empty());
  EXPECT_EQ(arc.tracked(), 0u);
}

TEST(Arc, GhostListsAreBoundedByCapacity) {
  ArcPolicy arc;
  arc.on_keys_created(Keys({"A", "B"}));  // capacity 2
  EXPECT_EQ(arc.get_eviction_victims(1.0, {}), Keys({"B", "A"}));
  arc.on_keys_removed(Keys({"B", "A"}));
  EXPECT_EQ(arc.list(L::B1), Keys({"B", "A"}));
  arc.on_keys_created(Keys({"C"}));  // |T1| + |B1| = 3 > 2: the oldest ghost, B, goes
  EXPECT_EQ(arc.list(L::B1), Keys({"A"}));
  EXPECT_EQ(arc.list(L::T1), Keys({"C"}));
}

TEST(Arc, DrivesTheL1EvictionLoop) {
  util::VirtualClock clock;
  EngineConfig cfg = ExampleConfig(16384, 0.5);
  cfg.eviction_policy = "ARC";
  auto opened = Open(cfg, clock);
  StorageManager& sm = *opened;
  Put(sm, Keys({"A", "B", "C", "D"}));  // L1 full: usage 1.0
  sm.eviction_tick_now();
  EXPECT_EQ(sm.l1().num_objects(), 2u);
  EXPECT_NE(sm.l1().find(K("A")), nullptr);
  EXPECT_NE(sm.l1().find(K("B")), nullptr);
  auto& arc = static_cast<ArcPolicy&>(sm.eviction_policy());
  EXPECT_EQ(arc.list(L::B1), Keys({"D", "C"}));  // the L1's deletions confirmed both victims
  EXPECT_EQ(fleet::engine::to_json(sm.counters())["l1_evicted_keys"], 2);
}

}  // namespace
}  // namespace fleet::storage
