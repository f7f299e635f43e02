#include "fleet/coordinator/session/l2_local_run.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "fleet/insight/html/l2_report.h"
#include "fleet/insight/report/outputs.h"
#include "fleet/l2replay/l2_prepare.h"
#include "fleet/l2replay/l2_replayer.h"
#include "fleet/l2replay/l2_stats_json.h"
#include "fleet/util/malloc_tuning.h"
#include "fleet/util/output_file.h"

namespace fleet::session {

namespace {

std::atomic<bool> g_stop{false};
void on_signal(int) { g_stop.store(true); }

// Flags of the storage replay that mean nothing for an L2 trace: refused, not ignored.
Status refuse_storage_flags(const ReplayOptions& o) {
  const char* flag = o.from_zero                        ? "--from-zero"
                     : o.verbose                        ? "--verbose"
                     : !o.jsonl_out.empty()             ? "--jsonl-out"
                     : o.decode_ahead                   ? "--decode-ahead"
                     : o.engine.engine_name != "native" ? "--engine"
                                                        : nullptr;
  if (!flag) return Status();
  return Status::error(std::string(flag) + " applies to storage traces only; " + o.trace_path +
                       " is an L2 adapter-level trace (docs/l2-traces.md)");
}

Status write_text(const std::string& path, const std::string& text) {
  const auto parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (ec) return Status::error("cannot create " + parent.string() + ": " + ec.message());
  return util::write_file_atomically(path, {text});
}

std::string in_dir(const ReplayOptions& o, const char* name) {
  return (std::filesystem::path(o.output.output_dir) / name).string();
}

// Each step's failure is a value naming what failed: the trace and its refusals, the output
// directory, the adapter, a stalled prepare or drain, a file that cannot be written.
Result<ExitCode> replay(const ReplayOptions& o, util::Clock& clock) {
  l2replay::L2PlanOptions po;
  po.trace_percent = o.l2.trace_percent;
  po.max_frame_bytes = o.max_frame_bytes;
  Result<l2replay::L2Plan> plan = l2replay::build_l2_plan(o.trace_path, po);
  if (!plan) return plan.status();
  if (Status s = report::prepare_output_dir(o.output.output_dir); !s) return s;
  Result<std::unique_ptr<l2replay::L2Target>> target = l2replay::L2Target::create(o.engine, clock);
  if (!target) return target.status();
  if (o.l2.prepare || o.l2.prepare_only) {
    const auto p = l2replay::prepare_l2(plan.value(), *target.value(), o.l2.drain_timeout_s);
    if (!p) return p.status();
    const std::string manifest = l2replay::prepare_manifest_json(p.value());
    if (Status s = write_text(in_dir(o, "l2_prepare_manifest.json"), manifest); !s) return s;
    if (!o.output.quiet) {
      std::printf("L2 prepare: %llu objects, %llu bytes, %.3f s\n",
                  static_cast<unsigned long long>(p->prepared_objects),
                  static_cast<unsigned long long>(p->prepared_bytes), p->elapsed_seconds);
    }
    if (o.l2.prepare_only) return ExitCode::kOk;
  }
  l2replay::L2ReplayOptions ro;
  ro.speed = o.speed;
  ro.drain_timeout_s = o.l2.drain_timeout_s;
  ro.stop = &g_stop;
  ro.digest_plan = true;
  const Result<l2replay::L2ReplayResult> r =
      l2replay::replay_l2_plan(plan.value(), *target.value(), ro);
  if (!r) return r.status();
  const std::string stats =
      o.l2.stats_out.empty() ? in_dir(o, "l2_replay_stats.json") : o.l2.stats_out;
  if (Status s = write_text(stats, l2replay::l2_replay_stats_text(plan.value(), r.value())); !s)
    return s;
  write_l2_report_page(o);
  if (!o.output.quiet) {
    std::fputs(l2replay::l2_terminal_summary(plan.value(), r.value()).c_str(), stdout);
    std::printf("  stats: %s\n", stats.c_str());
  }
  return r->interrupted ? ExitCode::kInterrupted : ExitCode::kOk;
}

}  // namespace

void write_l2_report_page(const ReplayOptions& o) {
  if (!o.output.write_report) return;
  if (!o.l2.stats_out.empty()) {
    spdlog::info("report.html not written: --l2-stats-out puts the stats outside --output-dir");
    return;
  }
  const Result<std::string> page = report::html::write_l2_report_page(o.output.output_dir);
  if (!page) spdlog::warn("report.html not written: {}", page.status().message());
}

ExitCode run_l2_local(const ReplayOptions& o) {
  if (Status s = refuse_storage_flags(o); !s) {
    spdlog::error("{}", s.message());
    return s.code();
  }
  std::unique_ptr<util::Clock> vclock;
  util::RealClock real_clock(o.spin_us * 1000);
  util::Clock* clock = &real_clock;
  if (o.virtual_clock) {
    vclock = std::make_unique<util::VirtualClock>(1'000'000'000);
    clock = vclock.get();
  }
  // Unpaced runs of large traces fault the heap's next 64 MiB in 2 MiB at a time, as the storage
  // replay does (util/malloc_tuning.h): the plan's key tables, the adapter's, the samples.
  std::error_code ec;
  const uint64_t trace_bytes = std::filesystem::file_size(o.trace_path, ec);
  if (o.speed == 0 && !ec && trace_bytes >= util::kHugeHeapFromTraceBytes)
    util::back_heap_with_huge_pages();
  g_stop.store(false);
  auto old_int = std::signal(SIGINT, on_signal);
  auto old_term = std::signal(SIGTERM, on_signal);
  const Result<ExitCode> code = replay(o, *clock);
  std::signal(SIGINT, old_int);
  std::signal(SIGTERM, old_term);
  if (code) return code.value();
  spdlog::error("{}", code.status().message());
  return code.status().code();
}

}  // namespace fleet::session
