#include "lint_pass.h"

#include <algorithm>

#include "fleet/trace/errors.h"
#include "fleet/trace/op_decoder.h"
#include "fleet/trace/types.h"
#include "fleet/util/sha256.h"

namespace fleet::lct {

namespace {

std::string key_text(const trace::ObjectKey& k) {
  std::string h;
  static const char* hex = "0123456789abcdef";
  for (unsigned char c : k.chunk_hash) {
    h += hex[c >> 4];
    h += hex[c & 15];
  }
  return h + "/" + k.model_name + "/rank " + std::to_string(k.kv_rank) + "/group " +
         std::to_string(k.object_group_id);
}

}  // namespace

void KeyLedger::take(const trace::ObjectKey& k, uint64_t offset) {
  auto [it, fresh] = holds_.try_emplace(k);
  if (fresh) it->second.first_offset = offset;
  ++it->second.count;
}

bool KeyLedger::release(const trace::ObjectKey& k) {
  auto it = holds_.find(k);
  if (it == holds_.end()) return false;
  if (--it->second.count == 0) holds_.erase(it);
  return true;
}

std::vector<std::pair<uint64_t, std::string>> KeyLedger::held() const {
  std::vector<std::pair<uint64_t, std::string>> v;
  for (const auto& [k, holds] : holds_) v.emplace_back(holds.first_offset, key_text(k));
  return v;
}

LintPass::LintPass(trace::FrameReader& reader, size_t max_offsets)
    : reader_(reader),
      h_(reader.header()),
      events_(h_.level == trace::kLevelEvents),
      findings_(lint_checks(max_offsets)) {}

void LintPass::run(const CollectingReporter& reporter) {
  check_header();
  while (next_record()) {
    const uint64_t offset = rec_.file_offset;
    check_time(offset);
    if (decode(offset)) check_lifecycle(offset);
  }
  check_reader_warnings(reporter);
  check_left_open();
}

void LintPass::check_header() {
  Findings& F = findings_;
  if (h_.trace_schema_version == 1) F.add("schema_not_replayable", 0, "trace_schema_version 1");
  if (h_.level != trace::kLevelStorage && !events_) {
    F.add("unknown_level", 0, "level \"" + h_.level + "\"");
  }
  if (events_) F.add("events_level", 0, "level events");
  if (h_.sm_config_json.empty() && h_.sm_config_digest.empty()) {
    F.add("placeholder_config", 0, "sm_config_json and sm_config_digest are empty");
  } else if (util::sha256_hex(h_.sm_config_json) != h_.sm_config_digest) {
    F.add("config_digest_mismatch", 0,
          "digest " + h_.sm_config_digest + ", SHA-256 of the JSON " +
              util::sha256_hex(h_.sm_config_json));
  }
}

bool LintPass::next_record() {
  try {
    if (!reader_.next(rec_)) return false;
  } catch (const trace::TraceError& e) {
    findings_.add("unreadable", reader_.counters().bytes_consumed, e.what());
    return false;
  }
  ++records_;
  return true;
}

void LintPass::check_time(uint64_t offset) {
  if (rec_.t_mono < 0) {
    findings_.add("negative_t_mono", offset, "t_mono " + std::to_string(rec_.t_mono));
  }
  if (records_ > 1 && rec_.t_mono < max_t_) {
    findings_.add("non_monotonic", offset,
                  "t_mono " + std::to_string(rec_.t_mono) + " < " + std::to_string(max_t_));
  }
  if (records_ == 1 || rec_.t_mono > max_t_) max_t_ = rec_.t_mono;
}

bool LintPass::decode(uint64_t offset) {
  if (events_) {
    if (rec_.qualname != "events.batch" && rec_.qualname != "events.lifecycle") {
      note_unknown(offset);
    }
    return false;
  }
  try {
    trace::decode_op(rec_, op_);
  } catch (const trace::DecodeError& e) {
    findings_.add(
        "args_decode_failed", offset,
        std::string(rec_.qualname.substr(rec_.qualname.rfind('.') + 1)) + ": " + e.what());
    return false;
  }
  if (op_.kind == trace::OpKind::Unknown) {
    note_unknown(offset);
    return false;
  }
  ++decoded_;
  return true;
}

void LintPass::note_unknown(uint64_t offset) {
  ++unknown_[std::string(rec_.qualname)];
  findings_.add("unknown_qualname", offset, std::string(rec_.qualname));
}

void LintPass::check_lifecycle(uint64_t offset) {
  switch (op_.kind) {
    case trace::OpKind::ReserveWrite:
      for (const auto& k : op_.keys) reserved_.take(k, offset);
      break;
    case trace::OpKind::FinishWrite:
      release_all(reserved_, "finish_without_reserve", "reserved", offset);
      break;
    case trace::OpKind::AbortWrite:
      release_all(reserved_, "abort_without_reserve", "reserved", offset);
      break;
    case trace::OpKind::ReadEnter:
      reads_.open(op_.keys, {op_.keys, offset});
      for (const auto& k : op_.keys) read_open_.take(k, offset);
      break;
    case trace::OpKind::ReadExit: {
      OpenRead closed;  // the oldest open context of these keys, as the replay closes it
      if (!reads_.close(op_.keys, closed)) {
        findings_.add("exit_without_enter", offset, std::to_string(op_.keys.size()) + " keys");
      }
      break;
    }
    case trace::OpKind::FinishRead:
      release_all(read_open_, "finish_read_without_read", "read", offset);
      break;
    default:
      break;
  }
}

// Releases each of the op's keys from `ledger`; the keys that were not held are check `id`.
void LintPass::release_all(KeyLedger& ledger, const char* id, const char* not_what,
                           uint64_t offset) {
  size_t missing = 0;
  const trace::ObjectKey* first = nullptr;
  for (const auto& k : op_.keys) {
    if (!ledger.release(k)) {
      ++missing;
      if (!first) first = &k;
    }
  }
  if (missing) {
    findings_.add(id, offset,
                  std::to_string(missing) + " of " + std::to_string(op_.keys.size()) +
                      " keys not " + not_what + ", e.g. " + key_text(*first));
  }
}

void LintPass::check_reader_warnings(const CollectingReporter& reporter) {
  for (const auto& w : reporter.items) {
    bool truncated = w.what.rfind("truncated", 0) == 0;
    findings_.add(truncated ? "truncated_tail" : "malformed", w.offset, w.what);
  }
}

// End-of-file leftovers, reported by offset of the oldest open occurrence.
void LintPass::check_left_open() {
  add_sorted("reserve_never_finished", reserved_.held());
  std::vector<std::pair<uint64_t, std::string>> enters;
  reads_.close_all([&](const OpenRead& r) {
    enters.emplace_back(r.offset, std::to_string(r.keys.size()) + " keys");
  });
  add_sorted("enter_never_exited", std::move(enters));
  add_sorted("read_never_finished", read_open_.held());
}

void LintPass::add_sorted(const char* id, std::vector<std::pair<uint64_t, std::string>> items) {
  std::sort(items.begin(), items.end());
  for (auto& [offset, message] : items) findings_.add(id, offset, std::move(message));
}

}  // namespace fleet::lct
