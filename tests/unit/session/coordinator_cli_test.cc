// The coordinator's command line: its flags live in option groups (cli/flag_groups.h), where
// CLI11 no longer checks one group's names against another's, and engine_flag_given must look
// into the groups. Each flag is parsed, named once, and shown once in --help.
#include "fleet/coordinator/cli/coordinator_cli.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "../../../coordinator/cli/flag_groups.h"

namespace fleet::cli {
namespace {

std::unique_ptr<ParsedCli> parse(std::vector<std::string> args, int* code = nullptr) {
  args.insert(args.begin(), "coordinator");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  ParseOutcome parsed = parse_command_line(static_cast<int>(argv.size()), argv.data());
  if (code) *code = exit_status(parsed.exit);
  return std::move(parsed.cli);
}

TEST(CoordinatorCli, NoFlagNameIsTakenTwiceAndHelpShowsEachVisibleFlagOnce) {
  auto cli = parse({"t.lct"});
  ASSERT_TRUE(cli);
  std::map<std::string, int> names;
  std::vector<std::string> visible;
  for_each_flag(*cli->app, [&](const CLI::Option& opt) {
    for (const auto& n : opt.get_lnames()) ++names["--" + n];
    for (const auto& n : opt.get_snames()) ++names["-" + n];
    if (opt.nonpositional() && !opt.get_group().empty())
      visible.push_back(opt.get_name(false, true));
  });
  EXPECT_GT(names.size(), 60u);
  for (const auto& [name, times] : names) EXPECT_EQ(times, 1) << name;

  const std::string help = cli->app->help();
  for (const std::string& flag : visible) {
    // A flag's line starts with two spaces and its name (e.g. "  --l1-use-lazy,--no-l1-...").
    const std::string start = "\n  " + flag;
    int count = 0;
    for (size_t at = help.find(start); at != std::string::npos; at = help.find(start, at + 1)) {
      const char next = help[at + start.size()];
      count += next == ' ' || next == '\n';
    }
    EXPECT_EQ(count, 1) << flag << " in\n" << help;
  }
  for (const char* heading :
       {"\nEngine:\n", "\nOutputs:\n", "\nFleet:\n", "\nSecurity (docs/security.md):\n"}) {
    EXPECT_NE(help.find(heading), std::string::npos) << heading;
  }
  EXPECT_EQ(help.find("start-at-mono-ns"), std::string::npos);  // hidden: set by --sweep
  EXPECT_EQ(help.find("[Option Group"), std::string::npos);
}

TEST(CoordinatorCli, FlagsInEveryGroupAreParsedAndEngineFlagsAreSeen) {
  auto cli = parse({"t.lct", "--l1-size-gb", "2", "-q", "--no-report", "--shard", "key", "--local",
                    "3", "--insecure", "--sweep-goal", "p99"});
  ASSERT_TRUE(cli);
  EXPECT_EQ(cli->fleet.replay.engine.l1_size_in_bytes, uint64_t{2} << 30);
  EXPECT_TRUE(cli->fleet.replay.output.quiet);
  EXPECT_FALSE(cli->fleet.replay.output.write_report);
  EXPECT_EQ(cli->fleet.router.mode, plan::ShardMode::Key);
  EXPECT_EQ(cli->fleet.local, 3);
  EXPECT_TRUE(cli->fleet.insecure);
  EXPECT_EQ(cli->extras.sweep.goal, "p99");
  EXPECT_TRUE(cli->wants_fleet());
  EXPECT_TRUE(engine_flag_given(*cli->app));

  auto ns_only = parse({"t.lct", "--l2-key-namespace", "run7"});
  ASSERT_TRUE(ns_only);
  EXPECT_FALSE(engine_flag_given(*ns_only->app));  // the namespace travels on its own
  EXPECT_FALSE(ns_only->wants_fleet());
}

TEST(CoordinatorCli, ConflictsAcrossTheCommandLineStillFail) {
  int code = -1;
  EXPECT_FALSE(parse({"t.lct", "--workers", "h:1", "--local", "2"}, &code));
  EXPECT_EQ(code, 2);
  EXPECT_FALSE(parse({"t.lct", "--no-such-flag"}, &code));
  EXPECT_EQ(code, 2);
  EXPECT_FALSE(parse({"t.lct", "--eviction-ratio", "1.5"}, &code));
  EXPECT_EQ(code, 2);
}

// Enum flags bind through their name tables: the value arrives as the enum, no second parse.
TEST(CoordinatorCli, EnumFlagsBindTheirEnums) {
  auto cli = parse({"t.lct", "--shard", "time", "--timeline", "stack", "--on-worker-loss",
                    "continue", "--compression", "none", "--trace-access", "stream", "--clock",
                    "virtual", "--progress", "never"});
  ASSERT_TRUE(cli);
  EXPECT_EQ(cli->fleet.router.mode, plan::ShardMode::Time);
  EXPECT_EQ(cli->fleet.router.timeline, plan::Timeline::Stack);
  EXPECT_EQ(cli->fleet.on_worker_loss, session::OnWorkerLoss::Continue);
  EXPECT_EQ(cli->fleet.compression, session::Compression::None);
  EXPECT_EQ(cli->fleet.trace_access, session::TraceAccess::Stream);
  EXPECT_TRUE(cli->fleet.replay.virtual_clock);
  EXPECT_EQ(cli->fleet.replay.progress, report::ProgressReporter::Mode::Never);

  auto defaults = parse({"t.lct"});
  ASSERT_TRUE(defaults);
  EXPECT_EQ(defaults->fleet.router.mode, plan::ShardMode::None);
  EXPECT_FALSE(defaults->fleet.replay.virtual_clock);
  const std::string help = defaults->app->help();
  EXPECT_NE(help.find("{none,time,key,source}"), std::string::npos) << help;  // names, not numbers
  EXPECT_FALSE(defaults->fleet.shard_source);
  auto source = parse({"a.lct", "b.lct", "--shard", "source"});  // L2 traces: one per server
  ASSERT_TRUE(source);
  EXPECT_TRUE(source->fleet.shard_source);
  EXPECT_EQ(source->fleet.router.mode, plan::ShardMode::None);
  EXPECT_EQ(source->fleet.replay.more_trace_paths, std::vector<std::string>{"b.lct"});

  int code = -1;
  EXPECT_FALSE(parse({"t.lct", "--shard", "2"}, &code));  // the enum's number is not a name
  EXPECT_EQ(code, 2);
}

// --heartbeat-ms reaches --local workers (each side's loss budget is 3 of its own periods),
// unless --local-worker-arg gives theirs; workers elsewhere keep their own. --spin-us too.
TEST(CoordinatorCli, LocalWorkersGetTheCoordinatorsHeartbeatAndSpin) {
  using Args = std::vector<std::string>;
  auto given = parse({"t.lct", "--local", "2", "--heartbeat-ms", "1000"});
  ASSERT_TRUE(given);
  EXPECT_EQ(given->fleet.local_worker_args, Args{"--heartbeat-ms=1000"});
  auto own = parse({"t.lct", "--local", "2", "--heartbeat-ms", "1000",
                    "--local-worker-arg=--heartbeat-ms=2000"});
  ASSERT_TRUE(own);
  EXPECT_EQ(own->fleet.local_worker_args, Args{"--heartbeat-ms=2000"});
  auto unset = parse({"t.lct", "--local", "2"});
  ASSERT_TRUE(unset);
  EXPECT_TRUE(unset->fleet.local_worker_args.empty());
  auto remote = parse({"t.lct", "--workers", "hosts.txt", "--heartbeat-ms", "1000"});
  ASSERT_TRUE(remote);
  EXPECT_TRUE(remote->fleet.local_worker_args.empty());
  // --spin-us likewise: the embedded clock's, and the --local workers'.
  auto spin = parse({"t.lct", "--local", "2", "--spin-us", "2000"});
  ASSERT_TRUE(spin);
  EXPECT_EQ(spin->fleet.replay.spin_us, 2000);
  EXPECT_EQ(spin->fleet.local_worker_args, Args{"--spin-us=2000"});
}

}  // namespace
}  // namespace fleet::cli
