// `lct`: inspect, check, dump and generate LMCache storage traces (.lct). Flag parsing only;
// each subcommand lives in its own file (info.cc, lint.cc, cat.cc, gen.cc; mrc/ for `lct mrc`).
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "lct.h"
#include "mrc/mrc_command.h"

namespace {

constexpr const char* kFooter =
    "Exit codes: 0 ok (lint: clean); 1 lint found problems, or the file failed mid-read;\n"
    "2 usage error, unreadable path or invalid header. See docs/lct.md.";

}  // namespace

int main(int argc, char** argv) {
  // Reader warnings (truncated tail, skipped records) go to stderr, never into the output.
  spdlog::set_default_logger(spdlog::stderr_color_st("lct"));
  spdlog::set_pattern("lct: %l: %v");

  CLI::App app{"lct: inspect, check, dump and generate LMCache storage traces (.lct)"};
  app.footer(kFooter);
  app.require_subcommand(1);
  app.fallthrough();  // --max-frame-mb may follow the subcommand
  uint32_t max_frame_mb = 64;
  app.add_option("--max-frame-mb", max_frame_mb, "Largest frame accepted, in MiB (default 64)")
      ->check(CLI::Range(1u, 4095u));

  std::string info_file;
  auto* info = app.add_subcommand("info", "Summary identical to `lmcache trace info FILE`");
  info->add_option("FILE", info_file, "Trace file")->required();

  fleet::lct::LintArgs lint_args;
  auto* lint = app.add_subcommand("lint", "Check a trace before replaying it (exit 1 on problems)");
  lint->add_option("FILE", lint_args.file, "Trace file")->required();
  lint->add_flag("--json", lint_args.json, "Machine-readable report on stdout");
  lint->add_option("--max-offsets", lint_args.max_offsets,
                   "Offsets listed per finding (default 5)");

  fleet::lct::CatArgs cat_args;
  auto* cat = app.add_subcommand("cat", "Records as JSON lines with decoded args");
  cat->add_option("FILE", cat_args.file, "Trace file")->required();
  cat->add_option("--head", cat_args.head, "Print only the first N records");

  fleet::lct::GenArgs gen_args;
  auto& o = gen_args.options;
  int era = 3;
  auto* gen = app.add_subcommand("gen", "Write a deterministic synthetic trace");
  gen->add_option("-o,--output", gen_args.output, "Output .lct file")->required();
  gen->add_option("--seed", o.seed, "Random seed; same seed and flags => same bytes (default 1)");
  auto* dur = gen->add_option("--duration", o.duration_s, "Seconds of traffic (default 60)");
  auto* recs = gen->add_option("--records", o.records,
                               "Stop admitting requests at N records (instead of --duration); "
                               "in-flight requests finish, so the file may hold a few more");
  dur->excludes(recs);
  gen->add_option("--rate", o.rate, "Requests per second, Poisson (default 10)");
  gen->add_option("--era", era, "LMCache StorageManager era of the args: 1, 3 or 4 (default 3)")
      ->check(CLI::IsMember({1, 3, 4}));
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
  gen->add_flag("-q,--quiet", gen_args.quiet, "No summary line on stderr");

  fleet::lct::MrcArgs mrc_args;
  auto* mrc = fleet::lct::add_mrc_command(app, mrc_args);

  using fleet::exit_status;
  using fleet::ExitCode;
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    app.exit(e);  // prints the help
    return exit_status(ExitCode::kOk);
  } catch (const CLI::CallForAllHelp& e) {
    app.exit(e);
    return exit_status(ExitCode::kOk);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return exit_status(ExitCode::kBadInput);
  }

  uint32_t frame_mb = max_frame_mb;
  if (info->parsed()) return exit_status(fleet::lct::run_info(info_file, frame_mb));
  if (lint->parsed()) {
    lint_args.max_frame_mb = frame_mb;
    return exit_status(fleet::lct::run_lint(lint_args));
  }
  if (cat->parsed()) {
    cat_args.max_frame_mb = frame_mb;
    return exit_status(fleet::lct::run_cat(cat_args));
  }
  if (mrc->parsed()) {
    mrc_args.max_frame_mb = frame_mb;
    return exit_status(fleet::lct::run_mrc(mrc_args));
  }
  if (gen->parsed()) {
    o.era = static_cast<fleet::trace::Era>(era);
    if (recs->count() > 0 && o.records == 0) {
      fleet::lct::print_error("gen", "--records must be > 0");
      return exit_status(ExitCode::kBadInput);
    }
    return exit_status(fleet::lct::run_gen(gen_args));
  }
  return exit_status(ExitCode::kBadInput);
}
