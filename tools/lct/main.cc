// `lct`: inspect, check, dump and generate LMCache storage traces (.lct). Flag parsing only;
// each subcommand lives in its own file (info.cc, lint.cc, cat.cc, gen.cc; mrc/ for `lct mrc`).
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <array>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>

#include "fleet/flags/enum_flag.h"
#include "fleet/flags/parse_errors.h"
#include "fleet/flags/range_checks.h"
#include "fleet/trace/op_encoder.h"
#include "lct.h"
#include "mrc/mrc_command.h"

namespace {

using fleet::ExitCode;

constexpr const char* kFooter =
    "Exit codes: 0 ok (lint: clean); 1 lint found problems, or the file failed mid-read;\n"
    "2 usage error, unreadable path or invalid header. See docs/lct.md.";

// The eras `lct gen --era` writes, as the flag spells them.
constexpr std::array<std::pair<std::string_view, fleet::trace::Era>, 3> kEraNames{
    {{"1", fleet::trace::Era::One},
     {"3", fleet::trace::Era::Three},
     {"4", fleet::trace::Era::Four}}};

// Every subcommand's arguments, bound to the flags that fill them.
struct Args {
  uint32_t max_frame_mb = 64;
  std::string info_file;
  fleet::lct::LintArgs lint;
  fleet::lct::CatArgs cat;
  fleet::lct::GenArgs gen;
  fleet::lct::MrcArgs mrc;
  CLI::Option* gen_records = nullptr;
};

void add_gen_command(CLI::App& app, Args& a) {
  auto& o = a.gen.options;
  auto* gen = app.add_subcommand("gen", "Write a deterministic synthetic trace");
  gen->add_option("-o,--output", a.gen.output, "Output .lct file")->required();
  gen->add_option("--seed", o.seed, "Random seed; same seed and flags => same bytes (default 1)");
  auto* dur = gen->add_option("--duration", o.duration_s, "Seconds of traffic (default 60)");
  a.gen_records = gen->add_option("--records", o.records,
                                  "Stop admitting requests at N records (instead of --duration); "
                                  "in-flight requests finish, so the file may hold a few more");
  dur->excludes(a.gen_records);
  gen->add_option("--rate", o.rate, "Requests per second, Poisson (default 10)");
  fleet::flags::add_enum_flag(*gen, "--era", o.era, kEraNames,
                              "LMCache StorageManager era of the args: 1, 3 or 4 (default 3)");
  gen->add_option("--tp", o.tp, "Tensor-parallel ranks; one key per rank (default 1)");
  gen->add_option("--models", o.models, "Distinct model names (default 1)");
  gen->add_option("--groups", o.groups, "Object groups per chunk (default 1)");
  gen->add_option("--chunk-tokens", o.chunk_tokens, "Tokens per chunk (default 256)");
  gen->add_option(
      "--layout", o.layout,
      "Model KV geometry KVxLAYERSxKV_HEADSxHEAD_DIM:DTYPE (default 2x32x8x128:bfloat16)");
  gen->add_option("--turns", o.max_turns, "Max turns per conversation (default 8)");
  gen->add_option("--system-prompts", o.system_prompts, "Shared system prompts (default 8)");
  gen->add_option("--max-context", o.max_context_tokens, "Max context tokens (default 32768)");
  gen->add_option("--cache-chunks", o.cache_chunks,
                  "Modelled cache capacity in chunks, drives hits/misses (default 65536)");
  gen->add_option("--abort-fraction", o.abort_fraction,
                  "Era 4: fraction of writes ending in abort_write (default 0.02)");
  gen->add_option("--l1-size-gb", o.l1_size_gb, "L1 size in the header's config (default 8)");
  gen->add_option("--t-wall-start", o.t_wall_start, "Header t_wall_start (default 1764460800)");
  gen->add_option("--t-mono-start", o.t_mono_start, "Header t_mono_start (default 5000)");
  gen->add_flag("-q,--quiet", a.gen.quiet, "No summary line on stderr");
}

// info, lint and cat: the subcommands that read a trace and print what they find.
void add_reading_commands(CLI::App& app, Args& a) {
  auto* info = app.add_subcommand("info", "Summary identical to `lmcache trace info FILE`");
  info->add_option("FILE", a.info_file, "Trace file")->required();
  auto* lint = app.add_subcommand("lint", "Check a trace before replaying it (exit 1 on problems)");
  lint->add_option("FILE", a.lint.file, "Trace file")->required();
  lint->add_flag("--json", a.lint.json, "Machine-readable report on stdout");
  lint->add_option("--max-offsets", a.lint.max_offsets, "Offsets listed per finding (default 5)");
  auto* cat = app.add_subcommand("cat", "Records as JSON lines with decoded args");
  cat->add_option("FILE", a.cat.file, "Trace file")->required();
  cat->add_option("--head", a.cat.head, "Print only the first N records");
}

// The subcommand the command line named, run.
ExitCode run_parsed(const CLI::App& app, Args& a) {
  const uint32_t frame_mb = a.max_frame_mb;
  auto parsed = [&app](const char* name) { return app.get_subcommand(name)->parsed(); };
  if (parsed("info")) return fleet::lct::run_info(a.info_file, frame_mb);
  if (parsed("lint")) {
    a.lint.max_frame_mb = frame_mb;
    return fleet::lct::run_lint(a.lint);
  }
  if (parsed("cat")) {
    a.cat.max_frame_mb = frame_mb;
    return fleet::lct::run_cat(a.cat);
  }
  if (parsed("mrc")) {
    a.mrc.max_frame_mb = frame_mb;
    return fleet::lct::run_mrc(a.mrc);
  }
  if (parsed("gen")) {
    if (a.gen_records->count() > 0 && a.gen.options.records == 0) {
      fleet::lct::print_error("gen", "--records must be > 0");
      return ExitCode::kBadInput;
    }
    return fleet::lct::run_gen(a.gen);
  }
  return ExitCode::kBadInput;
}

ExitCode run(int argc, char** argv) {
  // Reader warnings (truncated tail, skipped records) go to stderr, never into the output.
  spdlog::set_default_logger(spdlog::stderr_color_st("lct"));
  spdlog::set_pattern("lct: %l: %v");

  CLI::App app{"lct: inspect, check, dump and generate LMCache storage traces (.lct)"};
  app.footer(kFooter);
  app.require_subcommand(1);
  app.fallthrough();  // --max-frame-mb may follow the subcommand
  Args a;
  app.add_option("--max-frame-mb", a.max_frame_mb, "Largest frame accepted, in MiB (default 64)")
      ->check(fleet::flags::between(1, 4095));
  add_reading_commands(app, a);
  add_gen_command(app, a);
  fleet::lct::add_mrc_command(app, a.mrc);
  if (auto ended = fleet::flags::parse_or_exit(app, argc, argv)) return *ended;
  return run_parsed(app, a);
}

}  // namespace

int main(int argc, char** argv) { return fleet::exit_status(run(argc, argv)); }
