// Flags, reading the trace, and where the output goes; the algorithm and the rendering live
// in the lct_mrc library.
#include "mrc/mrc_command.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>

#include "fleet/trace/errors.h"
#include "fleet/trace/frame_reader.h"
#include "fleet/util/pyjson.h"
#include "lct.h"
#include "mrc/byte_size.h"
#include "mrc/knees.h"
#include "mrc/miss_ratio_curve.h"
#include "mrc/mrc_report.h"
#include "mrc/mrc_stream.h"

namespace fleet::lct {

namespace {

std::optional<std::vector<uint64_t>> parse_sizes(const std::string& list) {
  std::vector<uint64_t> out;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    auto v = mrc::parse_byte_size(item);
    if (!v) {
      print_error("mrc", "--sizes: '" + item + "' is not a size (e.g. 512MB, 1.5GB, 4096)");
      return std::nullopt;
    }
    out.push_back(*v);
  }
  if (out.empty()) {
    print_error("mrc", "--sizes: no size given");
    return std::nullopt;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool write_file(const char* flag, const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (f) f.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (f) f.close();
  if (!f) {
    print_error("mrc", std::string(flag) + ": cannot write " + path + ": " + std::strerror(errno));
    return false;
  }
  return true;
}

}  // namespace

CLI::App* add_mrc_command(CLI::App& app, MrcArgs& a) {
  auto* cmd = app.add_subcommand("mrc", "L1 miss-ratio curve of the trace's key stream (LRU)");
  cmd->add_option("FILE", a.file, "Trace file")->required();
  cmd->add_option("--sample", a.sample,
                  "SHARDS spatial sampling rate R, 0 < R <= 1 (default 1: exact)");
  auto* sizes =
      cmd->add_option("--sizes", a.sizes, "L1 sizes to report, e.g. 1GB,2GB,4GB (GB = 2^30 B)");
  auto* points =
      cmd->add_option("--points", a.points,
                      "Log-spaced sizes from the smallest object to the working set (default 40)");
  sizes->excludes(points);
  cmd->add_option("--csv", a.csv, "Also write size_bytes,miss_ratio,byte_miss_ratio,... here");
  cmd->add_option("--json", a.json, "Also write the curve and knees as JSON here");
  cmd->add_flag("--warm-as-write", a.warm_as_write,
                "Count WARM prefetch keys as writes (default: skipped; they never read L1)");
  return cmd;
}

ExitCode run_mrc(const MrcArgs& a) {
  if (!(a.sample > 0.0 && a.sample <= 1.0)) {
    print_error("mrc", "--sample must be in (0, 1], got " + util::py_float_repr(a.sample));
    return ExitCode::kBadInput;
  }
  if (a.points == 0) {
    print_error("mrc", "--points must be >= 1");
    return ExitCode::kBadInput;
  }
  std::optional<std::vector<uint64_t>> sizes;
  if (!a.sizes.empty() && !(sizes = parse_sizes(a.sizes))) return ExitCode::kBadInput;

  std::unique_ptr<trace::FrameReader> reader = open_trace("mrc", a.file, a.max_frame_mb);
  if (!reader) return ExitCode::kBadInput;
  if (reader->header().level != trace::kLevelStorage) {
    print_error("mrc", a.file + ": level \"" + reader->header().level +
                           "\" has no StorageManager calls; lct mrc reads storage-level traces");
    return ExitCode::kBadInput;
  }

  mrc::StreamOptions so;
  so.sample_rate = a.sample;
  so.warm_as_write = a.warm_as_write;
  mrc::AccessStreamBuilder builder(so);
  ExitCode code = ExitCode::kOk;
  try {
    mrc::add_records(*reader, builder);
  } catch (const trace::TraceError& e) {
    print_error("mrc", std::string(e.what()) + " (the curve covers the records before it)");
    code = ExitCode::kRecordsFailed;
  }
  mrc::AccessStream stream = builder.finish();
  mrc::MissRatioCurve curve = mrc::MissRatioCurve::compute(stream);
  stream.accesses = {};  // only its counts are needed from here on

  mrc::MrcReport report{a.file, stream, curve, {}, {}};
  if (curve.sampled_accesses() > 0) {
    std::vector<uint64_t> grid =
        sizes ? *sizes
              : mrc::log_spaced_sizes(curve.smallest_object(),
                                      std::max(curve.working_set_bytes(), curve.smallest_object()),
                                      a.points);
    for (uint64_t s : grid) report.points.push_back(curve.at(s));
    report.knees = mrc::find_knees(curve);
  }
  std::string table = mrc::render_table(report);
  std::fwrite(table.data(), 1, table.size(), stdout);
  if (std::fflush(stdout) != 0 && code == ExitCode::kOk) code = ExitCode::kRecordsFailed;
  if (!a.csv.empty() && !write_file("--csv", a.csv, mrc::render_csv(report)))
    return ExitCode::kBadInput;
  if (!a.json.empty() && !write_file("--json", a.json, mrc::render_json(report)))
    return ExitCode::kBadInput;
  return code;
}

}  // namespace fleet::lct
