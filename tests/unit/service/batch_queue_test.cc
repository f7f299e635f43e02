// The worker's hand-off between its network and replay threads: consumed batches wake the
// network thread (so CREDIT goes back at once), and a record that does not parse stops the
// replay with a reason instead of being skipped.
#include "fleet/worker/batch_queue.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "fleet/trace/frame_reader.h"
#include "fleet/trace/synthetic_trace.h"
#include "fleet/wire/batch.h"
#include "scratch_dir.h"

namespace fleet::service {
namespace {

bool readable(int fd) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

// A raw batch of `bodies` split into frames, as the network thread pushes it.
void push_batch(BatchQueue& q, const std::vector<std::string>& bodies, int64_t seq) {
  wire::BatchBuilder b;
  for (const auto& body : bodies) b.add(body);
  const std::string_view payload = b.finish(wire::BatchCodec::None);
  wire::RawBatch raw(payload.begin(), payload.end());
  wire::SplitBatch split = wire::split_frames(raw);
  q.push(std::move(raw), std::move(split), 0.0, seq);
}

std::vector<std::string> some_records(size_t n) {
  const std::string path = fleet::test::test_scratch_dir() / "batch_queue_test.lct";
  trace::SyntheticOptions o;
  o.records = n;
  o.duration_s = 1e9;
  trace::write_synthetic_trace(path, o);
  trace::FrameReader reader(path);
  trace::RecordView rec;
  std::vector<std::string> out;
  while (reader.next(rec)) out.emplace_back(reinterpret_cast<const char*>(rec.body), rec.body_size);
  return out;
}

TEST(BatchQueue, AConsumedBatchWakesTheNetworkThread) {
  const auto records = some_records(4);
  ASSERT_GE(records.size(), 4u);
  BatchQueue q;
  push_batch(q, {records[0], records[1]}, 0);
  push_batch(q, {records[2]}, 1);
  q.close_input();
  EXPECT_FALSE(readable(q.wakeup_fd()));
  trace::RecordView rec;
  ASSERT_TRUE(q.next(rec));
  ASSERT_TRUE(q.next(rec));
  EXPECT_FALSE(readable(q.wakeup_fd())) << "batch 0 is not finished until its last record is used";
  ASSERT_TRUE(q.next(rec));  // moves on to batch 1: batch 0 consumed
  EXPECT_TRUE(readable(q.wakeup_fd()));
  EXPECT_EQ(q.consumed_batches(), 1u);
  q.drain_wakeups();
  EXPECT_FALSE(readable(q.wakeup_fd()));
  EXPECT_FALSE(q.next(rec));
  EXPECT_EQ(q.consumed_batches(), 2u);
  EXPECT_TRUE(readable(q.wakeup_fd()));
  EXPECT_EQ(q.corruption(), "");
}

// The replay decodes ahead only while next() cannot block (decoded_stream.h): a record in the
// batch in hand or a batch already queued, never an empty queue waiting for the network.
TEST(BatchQueue, SaysWhenTheNextRecordIsAlreadyHere) {
  const auto records = some_records(3);
  ASSERT_GE(records.size(), 3u);
  BatchQueue q;
  EXPECT_FALSE(q.next_never_waits()) << "nothing received yet: next() would wait";
  push_batch(q, {records[0], records[1]}, 0);
  EXPECT_TRUE(q.next_never_waits());
  trace::RecordView rec;
  ASSERT_TRUE(q.next(rec));
  EXPECT_TRUE(q.next_never_waits()) << "the batch in hand has a record left";
  ASSERT_TRUE(q.next(rec));
  EXPECT_FALSE(q.next_never_waits()) << "batch used up, none queued";
  push_batch(q, {records[2]}, 1);
  EXPECT_TRUE(q.next_never_waits());
  ASSERT_TRUE(q.next(rec));
  q.close_input();
  EXPECT_FALSE(q.next_never_waits()) << "closed and empty: next() ends, there is nothing to read";
  EXPECT_FALSE(q.next(rec));
}

TEST(BatchQueue, ARecordThatDoesNotParseStopsTheReplayWithItsPlace) {
  const auto records = some_records(3);
  BatchQueue q;
  push_batch(q, {records[0], std::string("\x93\x01\x02\x03", 4), records[1]}, 5);
  q.close_input();
  trace::RecordView rec;
  ASSERT_TRUE(q.next(rec));
  EXPECT_FALSE(q.next(rec)) << "the damaged record must not be skipped";
  EXPECT_FALSE(q.next(rec)) << "nor anything after it";
  EXPECT_NE(q.corruption().find("batch 5, record 1 does not parse"), std::string::npos)
      << q.corruption();
}

}  // namespace
}  // namespace fleet::service
