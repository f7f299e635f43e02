// `lct lint FILE [--json]`: everything that would make a replay of this trace misleading,
// found before anyone replays it: header/schema, frames the reader drops, args that fail codec
// decode, unknown qualnames, t_mono going backwards, and write/read lifecycles that do not pair
// up the way LMCache's dispatcher pairs them (read contexts: FIFO per exact key tuple).
#include <algorithm>
#include <cstdio>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "fleet/trace/errors.h"
#include "fleet/trace/frame_reader.h"
#include "fleet/trace/l2_record.h"
#include "fleet/trace/op_decoder.h"
#include "fleet/trace/types.h"
#include "fleet/util/sha256.h"
#include "lct.h"

namespace fleet::lct {

namespace {

using trace::ObjectKey;

struct Finding {
  std::string section;
  std::string id;
  std::string title;
  bool problem = true;  // false: a note that does not fail the lint
  uint64_t count = 0;
  std::vector<uint64_t> offsets;
  std::vector<std::string> messages;
};

class Findings {
 public:
  explicit Findings(size_t max_offsets) : max_(max_offsets) {}
  Finding& def(const std::string& section, const std::string& id, const std::string& title,
               bool problem = true) {
    index_[id] = list_.size();
    list_.push_back({section, id, title, problem, 0, {}, {}});
    return list_.back();
  }
  void add(const std::string& id, uint64_t offset, std::string msg, uint64_t n = 1) {
    Finding& f = list_[index_.at(id)];
    f.count += n;
    if (f.offsets.size() < max_) {
      f.offsets.push_back(offset);
      f.messages.push_back(std::move(msg));
    }
  }
  const std::vector<Finding>& list() const { return list_; }
  size_t problems() const {
    size_t n = 0;
    for (const auto& f : list_)
      if (f.problem && f.count > 0) ++n;
    return n;
  }

 private:
  size_t max_;
  std::vector<Finding> list_;
  std::map<std::string, size_t> index_;
};

// Collects the reader's warnings instead of logging them; lint reports them itself.
class CollectingReporter final : public trace::Reporter {
 public:
  struct Item {
    uint64_t offset;
    std::string what;
  };
  void warning(uint64_t offset, std::string_view what) override {
    items.push_back({offset, std::string(what)});
  }
  std::vector<Item> items;
};

struct KeysHash {
  size_t operator()(const std::vector<ObjectKey>& keys) const noexcept {
    size_t h = keys.size();
    trace::ObjectKeyHash kh;
    for (const auto& k : keys) h = h * 1000003u ^ kh(k);
    return h;
  }
};

struct Outstanding {
  uint64_t count = 0;
  uint64_t first_offset = 0;  // oldest still-open occurrence
};

std::string key_text(const ObjectKey& k) {
  std::string h;
  static const char* hex = "0123456789abcdef";
  for (unsigned char c : k.chunk_hash) {
    h += hex[c >> 4];
    h += hex[c & 15];
  }
  return h + "/" + k.model_name + "/rank " + std::to_string(k.kv_rank) + "/group " +
         std::to_string(k.object_group_id);
}

std::string offsets_text(const Finding& f) {
  std::string s;
  for (size_t i = 0; i < f.offsets.size(); ++i) s += (i ? ", " : "") + std::to_string(f.offsets[i]);
  if (f.count > f.offsets.size()) s += ", ...";
  return s;
}

}  // namespace

ExitCode run_lint(const LintArgs& a) {
  CollectingReporter reporter;
  trace::ReaderOptions ro;
  ro.max_frame_bytes = a.max_frame_mb << 20;
  ro.reporter = &reporter;
  std::unique_ptr<trace::FrameReader> reader;
  try {
    reader = std::make_unique<trace::FrameReader>(a.file, ro);
  } catch (const trace::TraceError& e) {
    if (a.json) {
      nlohmann::ordered_json j = {{"file", a.file}, {"clean", false}, {"error", e.what()}};
      std::printf("%s\n", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    }
    print_error("lint", e.what());
    return ExitCode::kBadInput;
  }
  const trace::Header& h = reader->header();
  if (h.level == trace::kLevelL2) return run_l2_lint(a);
  const bool storage = h.level == trace::kLevelStorage;
  const bool events = h.level == trace::kLevelEvents;

  Findings F(a.max_offsets);
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

  if (h.trace_schema_version == 1) F.add("schema_not_replayable", 0, "trace_schema_version 1");
  if (!storage && !events) F.add("unknown_level", 0, "level \"" + h.level + "\"");
  if (events) F.add("events_level", 0, "level events");
  if (h.sm_config_json.empty() && h.sm_config_digest.empty()) {
    F.add("placeholder_config", 0, "sm_config_json and sm_config_digest are empty");
  } else if (util::sha256_hex(h.sm_config_json) != h.sm_config_digest) {
    F.add("config_digest_mismatch", 0,
          "digest " + h.sm_config_digest + ", SHA-256 of the JSON " +
              util::sha256_hex(h.sm_config_json));
  }

  std::unordered_map<ObjectKey, Outstanding, trace::ObjectKeyHash> reserved, read_open;
  std::unordered_map<std::vector<ObjectKey>, std::deque<uint64_t>, KeysHash> contexts;
  std::map<std::string, uint64_t> unknown;
  uint64_t records = 0, decoded = 0;
  double max_t = 0;
  trace::RecordView rec;
  trace::Op op;

  auto release = [&](std::unordered_map<ObjectKey, Outstanding, trace::ObjectKeyHash>& m,
                     const ObjectKey& k) {
    auto it = m.find(k);
    if (it == m.end()) return false;
    if (--it->second.count == 0) m.erase(it);
    return true;
  };
  auto take = [&](std::unordered_map<ObjectKey, Outstanding, trace::ObjectKeyHash>& m,
                  const ObjectKey& k, uint64_t off) {
    auto [it, fresh] = m.try_emplace(k);
    if (fresh) it->second.first_offset = off;
    ++it->second.count;
  };

  for (;;) {
    try {
      if (!reader->next(rec)) break;
    } catch (const trace::TraceError& e) {
      F.add("unreadable", reader->counters().bytes_consumed, e.what());
      break;
    }
    ++records;
    uint64_t off = rec.file_offset;
    if (rec.t_mono < 0) F.add("negative_t_mono", off, "t_mono " + std::to_string(rec.t_mono));
    if (records > 1 && rec.t_mono < max_t) {
      F.add("non_monotonic", off,
            "t_mono " + std::to_string(rec.t_mono) + " < " + std::to_string(max_t));
    }
    if (records == 1 || rec.t_mono > max_t) max_t = rec.t_mono;

    if (events) {
      if (rec.qualname != "events.batch" && rec.qualname != "events.lifecycle") {
        ++unknown[std::string(rec.qualname)];
        F.add("unknown_qualname", off, std::string(rec.qualname));
      }
      continue;
    }
    try {
      trace::decode_op(rec, op);
    } catch (const trace::DecodeError& e) {
      F.add("args_decode_failed", off,
            std::string(rec.qualname.substr(rec.qualname.rfind('.') + 1)) + ": " + e.what());
      continue;
    }
    if (op.kind == trace::OpKind::Unknown) {
      ++unknown[std::string(rec.qualname)];
      F.add("unknown_qualname", off, std::string(rec.qualname));
      continue;
    }
    ++decoded;
    size_t missing = 0;
    switch (op.kind) {
      case trace::OpKind::ReserveWrite:
        for (const auto& k : op.keys) take(reserved, k, off);
        break;
      case trace::OpKind::FinishWrite:
      case trace::OpKind::AbortWrite: {
        const ObjectKey* first = nullptr;
        for (const auto& k : op.keys) {
          if (!release(reserved, k)) {
            ++missing;
            if (!first) first = &k;
          }
        }
        if (missing) {
          F.add(op.kind == trace::OpKind::FinishWrite ? "finish_without_reserve"
                                                      : "abort_without_reserve",
                off,
                std::to_string(missing) + " of " + std::to_string(op.keys.size()) +
                    " keys not reserved, e.g. " + key_text(*first));
        }
        break;
      }
      case trace::OpKind::ReadEnter:
        contexts[op.keys].push_back(off);
        for (const auto& k : op.keys) take(read_open, k, off);
        break;
      case trace::OpKind::ReadExit: {
        auto it = contexts.find(op.keys);
        if (it == contexts.end() || it->second.empty()) {
          F.add("exit_without_enter", off, std::to_string(op.keys.size()) + " keys");
        } else {
          it->second.pop_front();  // the oldest open context, as the dispatcher does
          if (it->second.empty()) contexts.erase(it);
        }
        break;
      }
      case trace::OpKind::FinishRead: {
        const ObjectKey* first = nullptr;
        for (const auto& k : op.keys) {
          if (!release(read_open, k)) {
            ++missing;
            if (!first) first = &k;
          }
        }
        if (missing) {
          F.add("finish_read_without_read", off,
                std::to_string(missing) + " of " + std::to_string(op.keys.size()) +
                    " keys not read, e.g. " + key_text(*first));
        }
        break;
      }
      default:
        break;
    }
  }

  for (const auto& w : reporter.items) {
    bool truncated = w.what.rfind("truncated", 0) == 0;
    F.add(truncated ? "truncated_tail" : "malformed", w.offset, w.what);
  }
  // End-of-file leftovers, reported by offset of the oldest open occurrence.
  auto leftovers = [&](const char* id, std::vector<std::pair<uint64_t, std::string>> items) {
    std::sort(items.begin(), items.end());
    for (auto& [o, m] : items) F.add(id, o, std::move(m));
  };
  {
    std::vector<std::pair<uint64_t, std::string>> v;
    for (const auto& [k, o] : reserved) v.emplace_back(o.first_offset, key_text(k));
    leftovers("reserve_never_finished", std::move(v));
    v.clear();
    for (const auto& [keys, offs] : contexts)
      for (uint64_t o : offs) v.emplace_back(o, std::to_string(keys.size()) + " keys");
    leftovers("enter_never_exited", std::move(v));
    v.clear();
    for (const auto& [k, o] : read_open) v.emplace_back(o.first_offset, key_text(k));
    leftovers("read_never_finished", std::move(v));
  }

  const auto& c = reader->counters();
  size_t problems = F.problems();
  if (a.json) {
    using J = nlohmann::ordered_json;
    J unknown_j = J::object();
    for (const auto& [q, n] : unknown) unknown_j[q] = n;
    J checks = J::array();
    for (const auto& f : F.list()) {
      checks.push_back({{"id", f.id},
                        {"section", f.section},
                        {"title", f.title},
                        {"problem", f.problem},
                        {"count", f.count},
                        {"offsets", f.offsets},
                        {"messages", f.messages}});
    }
    J j = {{"file", a.file},
           {"clean", problems == 0},
           {"problems", problems},
           {"header",
            {{"level", h.level},
             {"format_version", h.format_version},
             {"trace_schema_version", h.trace_schema_version},
             {"replay_safe", h.trace_schema_version == trace::kReplayableSchema && storage},
             {"sm_config_digest", h.sm_config_digest}}},
           {"records",
            {{"read", records},
             {"decoded", decoded},
             {"malformed_skipped", c.malformed_skipped},
             {"truncated_tail_bytes", c.truncated_tail_bytes},
             {"max_t_mono", max_t}}},
           {"unknown_qualnames", unknown_j},
           {"checks", checks}};
    std::string s = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    std::fwrite(s.data(), 1, s.size(), stdout);
  } else {
    std::string out = "lct lint " + a.file + "\n";
    out += "header: level " + h.level + ", format_version " + std::to_string(h.format_version) +
           ", trace_schema_version " + std::to_string(h.trace_schema_version) +
           ", sm_config_digest " + (h.sm_config_digest.empty() ? "(none)" : h.sm_config_digest) +
           "\n";
    std::string section;
    for (const auto& f : F.list()) {
      if (f.section != section) {
        section = f.section;
        out += section;
        if (section == "records") {
          out += ": " + std::to_string(records) + " read, " + std::to_string(decoded) +
                 " decoded into ops";
        }
        out += "\n";
      }
      const char* tag = f.count == 0 ? "ok  " : f.problem ? "FAIL" : "note";
      out += "  " + std::string(tag) + "  " + f.title + ": " + std::to_string(f.count);
      if (f.count > 0 && f.section != "header") out += " (at offsets " + offsets_text(f) + ")";
      out += "\n";
      for (size_t i = 0; i < f.messages.size() && f.count > 0; ++i) {
        out += "          @" + std::to_string(f.offsets[i]) + ": " + f.messages[i] + "\n";
      }
      if (f.id == "unknown_qualname") {
        for (const auto& [q, n] : unknown)
          out += "          " + q + ": " + std::to_string(n) + "\n";
      }
    }
    out += problems == 0 ? "result: clean\n"
                         : "result: " + std::to_string(problems) + " kind(s) of problem found\n";
    std::fwrite(out.data(), 1, out.size(), stdout);
  }
  std::fflush(stdout);
  return problems == 0 ? ExitCode::kOk : ExitCode::kRecordsFailed;
}

}  // namespace fleet::lct
