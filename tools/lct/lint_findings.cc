#include "lint_findings.h"

namespace fleet::lct {

Finding& Findings::def(const std::string& section, const std::string& id, const std::string& title,
                       bool problem) {
  index_[id] = list_.size();
  list_.push_back({section, id, title, problem, 0, {}, {}});
  return list_.back();
}

void Findings::add(const std::string& id, uint64_t offset, std::string msg, uint64_t n) {
  Finding& f = list_[index_.at(id)];
  f.count += n;
  if (f.offsets.size() < max_) {
    f.offsets.push_back(offset);
    f.messages.push_back(std::move(msg));
  }
}

size_t Findings::problems() const {
  size_t n = 0;
  for (const auto& f : list_)
    if (f.problem && f.count > 0) ++n;
  return n;
}

Findings lint_checks(size_t max_offsets) {
  Findings F(max_offsets);
  F.def("header", "schema_not_replayable",
        "trace_schema_version 1: readable, but not replay-safe (ObjectKey.cache_salt may be "
        "missing; LMCache's replay requires schema 2)");
  F.def("header", "unknown_level", "level is neither storage nor events");
  F.def("header", "config_digest_mismatch",
        "sm_config_digest is not the SHA-256 of sm_config_json");
  F.def("header", "placeholder_config",
        "no recording-side config (placeholder header): replay cannot compare config digests",
        false);
  F.def("header", "events_level",
        "events-level trace: replay it with `lmcache trace replay-events`; storage lifecycle "
        "checks skipped",
        false);
  F.def("records", "malformed", "malformed frames skipped by the reader");
  F.def("records", "truncated_tail", "truncated tail (records after it are lost)");
  F.def("records", "unreadable", "corrupt length prefix: the rest of the file cannot be read");
  F.def("records", "args_decode_failed",
        "records whose args fail codec decode (replay skips them)");
  F.def("records", "unknown_qualname", "records with an unknown qualname (replay skips them)");
  F.def("time", "non_monotonic", "records whose t_mono is below an earlier record's");
  F.def("time", "negative_t_mono", "records with negative t_mono");
  F.def("writes", "finish_without_reserve", "finish_write with keys that have no reservation");
  F.def("writes", "abort_without_reserve", "abort_write with keys that have no reservation");
  F.def("writes", "reserve_never_finished", "reserved keys never finished or aborted");
  F.def("reads", "exit_without_enter",
        "read_prefetched_results.__exit__ without an open __enter__ of the same keys");
  F.def("reads", "enter_never_exited", "read_prefetched_results.__enter__ never exited");
  F.def("reads", "finish_read_without_read",
        "finish_read_prefetched with keys not read by an open read_prefetched_results");
  F.def("reads", "read_never_finished",
        "keys read but never released by finish_read_prefetched (LMCache's read TTL frees them)",
        false);
  return F;
}

std::string offsets_text(const Finding& f) {
  std::string s;
  for (size_t i = 0; i < f.offsets.size(); ++i) s += (i ? ", " : "") + std::to_string(f.offsets[i]);
  if (f.count > f.offsets.size()) s += ", ...";
  return s;
}

}  // namespace fleet::lct
