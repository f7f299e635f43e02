#include "fleet/replay/decoded_stream.h"

#include <bit>
#include <utility>

#include "fleet/trace/errors.h"
#include "fleet/trace/op_decoder.h"

namespace fleet::replay {

namespace {

// Keeps the keys of a split call's part (RecordView::key_mask) in an op its source decoded
// whole. The coordinator built the mask from this very record, so a key count that differs
// means the batch was damaged on the way (decode_op checks the same when it decodes the part).
void apply_key_mask(const trace::RecordView& rec, trace::Op& op) {
  auto& keys = op.kind == trace::OpKind::SubmitPrefetch ? op.spec.keys : op.keys;
  if (keys.size() != rec.key_mask_keys || rec.key_mask.size() != (keys.size() + 7) / 8) {
    throw trace::MalformedRecord(0, "its key mask covers " + std::to_string(rec.key_mask_keys) +
                                        " keys, the record has " + std::to_string(keys.size()));
  }
  size_t kept = 0;
  for (size_t i = 0; i < keys.size(); ++i) {
    if ((static_cast<uint8_t>(rec.key_mask[i / 8]) >> (i % 8)) & 1u) {
      if (kept != i) keys[kept] = keys[i];
      ++kept;
    }
  }
  if (kept == 0) throw trace::MalformedRecord(0, "its key mask keeps no key");
  keys.resize(kept);
}

}  // namespace

bool decode_record(RecordSource& source, const trace::RecordView& rec, DecodedRecord& out) {
  out.t_mono = rec.t_mono;
  out.file_offset = rec.file_offset;
  out.decoded = true;
  try {
    if (!source.take_decoded(rec, out.op)) {
      trace::decode_op(rec, out.op);  // the masked keys only
    } else if (!rec.key_mask.empty() && out.op.kind != trace::OpKind::Unknown) {
      apply_key_mask(rec, out.op);
    }
  } catch (const trace::MalformedRecord& e) {
    source.reject_malformed(rec, e.what());
    return false;
  } catch (const trace::DecodeError& e) {
    out.decoded = false;
    out.decode_error = e.what();
  }
  return true;
}

bool InlineDecoder::decode_into(size_t i) {
  while (source_.next(rec_)) {
    if (decode_record(source_, rec_, slots_[i])) return true;
  }
  return false;
}

const DecodedRecord* InlineDecoder::next() {
  const size_t i = next_slot_;
  if (ahead_ > 0) {
    --ahead_;
  } else {
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
    if (ended_ || !decode_into(i)) {
      ended_ = true;
      return nullptr;
    }
  }
  next_slot_ = (i + 1) % slots_.size();
  return &slots_[i];
}

// The slots filled are the kAhead after the one handed out last, which stays untouched.
void InlineDecoder::decode_ahead(const util::Clock& clock, int64_t until_ns) {
  while (ahead_ < kAhead && !ended_ && !error_ && source_.next_never_waits() &&
         clock.now_ns() < until_ns) {
    try {
      if (!decode_into((next_slot_ + ahead_) % slots_.size())) {
        ended_ = true;
        return;
      }
      ++ahead_;
    } catch (...) {
      error_ = std::current_exception();
    }
  }
}

namespace {

constexpr int kSpins = 256;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Spins, then sleeps on `bell` until ready() holds. The sleeping flag and the other side's
// position are both seq_cst, so either the waiter sees the new position or the other side sees
// the flag and rings: no wake-up is lost.
template <class Ready>
void wait_until(Ready ready, std::atomic<uint32_t>& bell, std::atomic<bool>& sleeping) {
  for (int i = 0; i < kSpins; ++i) {
    if (ready()) return;
    cpu_relax();
  }
  for (;;) {
    const uint32_t rung = bell.load(std::memory_order_acquire);
    sleeping.store(true, std::memory_order_seq_cst);
    if (ready()) break;
    bell.wait(rung, std::memory_order_acquire);
    if (ready()) break;
  }
  sleeping.store(false, std::memory_order_relaxed);
}

void ring(std::atomic<uint32_t>& bell, const std::atomic<bool>& sleeping) {
  if (!sleeping.load(std::memory_order_seq_cst)) return;
  bell.fetch_add(1, std::memory_order_release);
  bell.notify_one();
}

}  // namespace

DecodeAhead::DecodeAhead(RecordSource& source, size_t slots)
    : source_(source),
      ring_(std::bit_ceil(std::max<size_t>(slots, 2))),
      mask_(ring_.size() - 1),
      thread_([this] { produce(); }) {}

DecodeAhead::~DecodeAhead() {
  cancel();
  if (thread_.joinable()) thread_.join();
}

void DecodeAhead::cancel() {
  cancelled_.store(true, std::memory_order_seq_cst);
  ring(producer_bell_, producer_sleeping_);
}

void DecodeAhead::produce() {
  const uint64_t size = ring_.size();
  uint64_t produced = 0;
  trace::RecordView rec;
  try {
    while (!cancelled_.load(std::memory_order_relaxed)) {
      if (produced - released_.load(std::memory_order_acquire) == size) {
        wait_until(
            [&] {
              return cancelled_.load(std::memory_order_seq_cst) ||
                     produced - released_.load(std::memory_order_seq_cst) < size;
            },
            producer_bell_, producer_sleeping_);
        if (cancelled_.load(std::memory_order_relaxed)) break;
      }
      DecodedRecord& slot = ring_[produced & mask_];
      bool got = false;
      while (source_.next(rec)) {
        if (decode_record(source_, rec, slot)) {
          got = true;
          break;
        }
      }
      if (!got) break;
      published_.store(++produced, std::memory_order_seq_cst);
      ring(consumer_bell_, consumer_sleeping_);
    }
  } catch (...) {
    error_ = std::current_exception();
  }
  done_.store(true, std::memory_order_seq_cst);
  ring(consumer_bell_, consumer_sleeping_);
}

const DecodedRecord* DecodeAhead::next() {
  // The record handed out last time is done with: its slot may be decoded into again.
  released_.store(consumed_, std::memory_order_seq_cst);
  ring(producer_bell_, producer_sleeping_);
  // done_ before published_: once done_ is seen, the count read after it is final.
  auto available = [&] {
    const bool done = done_.load(std::memory_order_seq_cst);
    return published_.load(std::memory_order_seq_cst) > consumed_ || done;
  };
  if (!available()) wait_until(available, consumer_bell_, consumer_sleeping_);
  if (published_.load(std::memory_order_acquire) > consumed_) {
    return &ring_[consumed_++ & mask_];
  }
  if (error_ && !error_thrown_) {
    error_thrown_ = true;
    std::rethrow_exception(error_);
  }
  return nullptr;
}

}  // namespace fleet::replay
