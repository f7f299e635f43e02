// Miss attribution end to end (docs/causal-pacing.md "Miss attribution"): a run writes
// misses.csv and its summary's classes, a later run of the same trace pairs its misses with it
// (--baseline), embedded and across real worker processes, and the report says what changed.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "process_util.h"

namespace fleet::test {
namespace {

using Ran = CliRun;
Ran run(const std::string& args, const ScratchDir& dir) { return run_coordinator(args, dir); }

std::string gen_trace(const ScratchDir& dir) {
  const std::string t = (dir.path() / "t.lct").string();
  EXPECT_EQ(std::system((bin("tools/lct/lct") + " gen -q -o " + t +
                         " --seed 5 --duration 3 --rate 30 --layout 2x2x2x64:bfloat16")
                            .c_str()),
            0);
  return t;
}

nlohmann::json summary_of(const std::string& run_dir) {
  return nlohmann::json::parse(read_file(run_dir + "/fleet_summary.json"));
}

size_t lines_of(const std::string& path) {
  std::istringstream in(read_file(path));
  size_t n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

// Small chunks in a big L1, no eviction: where each key's records replay decides nothing, so the
// misses of an embedded run and of a key-sharded fleet run of the same trace are the same misses.
const char* kEngine = " --l1-size-gb 4 --progress never --clock virtual";

TEST(MissAttribution, ARunWritesEveryClassifiedMissAndItsClasses) {
  ScratchDir dir;
  const std::string out = (dir.path() / "base").string();
  const Ran r = run(gen_trace(dir) + kEngine + " --classify-misses --output-dir " + out, dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json m = summary_of(out)["misses"];
  ASSERT_TRUE(m.is_object()) << r.out;
  EXPECT_GT(m["total"].get<uint64_t>(), 0u);
  EXPECT_GT(m["prefetch"]["cold"].get<uint64_t>(), 0u);  // every trace starts cold
  EXPECT_FALSE(m["sped_up"].get<bool>());
  EXPECT_EQ(m["blame"]["compression"], 0);
  EXPECT_EQ(lines_of(out + "/misses.csv"), m["total"].get<size_t>() + 1);  // + the header
  EXPECT_NE(r.out.find("Misses (attribution)"), std::string::npos) << r.out;
  // Unasked at 1x: no classifier, no file.
  const std::string plain = (dir.path() / "plain").string();
  ASSERT_EQ(run(gen_trace(dir) + kEngine + " --output-dir " + plain, dir).code, 0);
  EXPECT_FALSE(summary_of(plain).contains("misses"));
  EXPECT_FALSE(std::filesystem::exists(plain + "/misses.csv"));
}

TEST(MissAttribution, AKeyShardedFleetRunPairsEveryMissWithTheEmbeddedBaseline) {
  ScratchDir dir;
  const std::string trace = gen_trace(dir);
  const std::string base = (dir.path() / "base").string(), fleet = (dir.path() / "fleet").string();
  ASSERT_EQ(run(trace + kEngine + " --classify-misses --output-dir " + base, dir).code, 0);
  const Ran r =
      run(trace + kEngine + " --local 2 --shard key --baseline " + base + " --output-dir " + fleet,
          dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json m = summary_of(fleet)["misses"];
  const nlohmann::json& p = m["baseline"];
  ASSERT_TRUE(p.is_object()) << m.dump();
  EXPECT_EQ(p["run"], base);
  EXPECT_EQ(p["both"], summary_of(base)["misses"]["total"]);
  EXPECT_EQ(p["only_this_run"]["total"], 0);
  EXPECT_EQ(p["only_baseline"]["total"], 0);
  // A virtual-clock baseline paced nothing: no lateness to judge it by.
  EXPECT_EQ(p["fell_behind"], false);
  EXPECT_FALSE(p.contains("lateness_p99_us")) << p.dump();
  // The baseline's summary was there: its own blame of the misses only it had (none here).
  ASSERT_TRUE(p.contains("only_baseline_blame")) << p.dump();
  EXPECT_EQ(p["only_baseline_blame"]["environment"], 0);
  const std::string page = read_file(fleet + "/report.html");
  EXPECT_NE(page.find("id=\"compression\""), std::string::npos);
  EXPECT_NE(page.find("Same misses as the baseline"), std::string::npos);
  EXPECT_EQ(page.find("The baseline fell behind"), std::string::npos);
}

// Issue 40: "check the 1x run's lateness before comparing". A baseline whose own summary shows
// it fell behind its recording (here: its fleet_summary.json is edited to read as a 1x run on
// the real clock that fell behind, as one on a slow backend writes it) is named as such in the
// pairing, the terminal, the verdict and the page; one that kept pace says that too.
TEST(MissAttribution, ABaselineThatFellBehindItsRecordingIsNamedInThePairing) {
  ScratchDir dir;
  const std::string trace = gen_trace(dir);
  const std::string base = (dir.path() / "base").string();
  ASSERT_EQ(run(trace + kEngine + " --classify-misses --output-dir " + base, dir).code, 0);
  const std::string summary_path = base + "/fleet_summary.json";
  const nlohmann::json original = summary_of(base);
  auto with_lateness = [&](double p99_us) {
    nlohmann::json s = original;
    s["speed"] = 1.0;
    s["clock"] = "real";
    s["lateness_us"]["records"] = 1000;
    s["lateness_us"]["p99"] = p99_us;
    s["lateness_us"]["late_over_1ms"] = p99_us > 1000 ? 20 : 0;
    std::ofstream(summary_path) << s.dump(2);
  };
  with_lateness(3500.0);
  const std::string behind = (dir.path() / "behind").string();
  const Ran r = run(trace + kEngine + " --baseline " + base + " --output-dir " + behind, dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json p = summary_of(behind)["misses"]["baseline"];
  EXPECT_EQ(p["fell_behind"], true) << p.dump();
  EXPECT_EQ(p["lateness_p99_us"].get<double>(), 3500.0);
  EXPECT_NE(r.out.find("(fell behind its recording: lateness p99 3.5 ms)"), std::string::npos)
      << r.out;
  EXPECT_NE(read_file(behind + "/report.html").find("The baseline fell behind its recording"),
            std::string::npos);
  with_lateness(400.0);
  const std::string kept = (dir.path() / "kept").string();
  const Ran k = run(trace + kEngine + " --baseline " + base + " --output-dir " + kept, dir);
  ASSERT_EQ(k.code, 0) << k.err;
  EXPECT_EQ(summary_of(kept)["misses"]["baseline"]["fell_behind"], false);
  EXPECT_NE(k.out.find("(kept pace: lateness p99 0.4 ms)"), std::string::npos) << k.out;
  EXPECT_EQ(read_file(kept + "/report.html").find("The baseline fell behind"), std::string::npos);
}

// A uniform 10x run on the real clock against its 1x baseline: every miss is paired or counted
// on one side, and a run whose misses moved says so in the report's verdict.
TEST(MissAttribution, ATenfoldRunAccountsForEveryMissAgainstItsBaseline) {
  ScratchDir dir;
  const std::string trace = gen_trace(dir);
  const std::string base = (dir.path() / "base").string(), fast = (dir.path() / "fast").string();
  ASSERT_EQ(run(trace + kEngine + " --classify-misses --output-dir " + base, dir).code, 0);
  const Ran r =
      run(trace + " --l1-size-gb 4 --progress never --speed 10 --pacing uniform --baseline " +
              base + " --output-dir " + fast,
          dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json m = summary_of(fast)["misses"];
  EXPECT_TRUE(m["sped_up"].get<bool>());
  const nlohmann::json& p = m["baseline"];
  const uint64_t base_total = summary_of(base)["misses"]["total"];
  EXPECT_EQ(p["both"].get<uint64_t>() + p["only_this_run"]["total"].get<uint64_t>(),
            m["total"].get<uint64_t>());
  EXPECT_EQ(p["both"].get<uint64_t>() + p["only_baseline"]["total"].get<uint64_t>(), base_total);
  EXPECT_NE(r.out.find("Only this run"), std::string::npos) << r.out;
  // The baseline's own blame covers each miss only it had once.
  uint64_t blamed = 0;
  for (const auto& [blame, n] : p["only_baseline_blame"].items()) blamed += n.get<uint64_t>();
  EXPECT_EQ(blamed, p["only_baseline"]["total"].get<uint64_t>()) << p.dump();
  const std::string page = read_file(fast + "/report.html");
  // The verdict's rules (docs/causal-pacing.md "Miss attribution"), from the summary's counts.
  auto sum = [](const nlohmann::json& by_class) {
    int64_t n = 0;
    for (const auto& [cls, v] : by_class.items()) n += v.get<int64_t>();
    return n;
  };
  auto net = [&](const char* where) {
    return sum(p["only_this_run"][where]) - sum(p["only_baseline"][where]);
  };
  auto noise = [&](const char* where) { return std::max<int64_t>(1, sum(m[where]) / 100); };
  const uint64_t added = p["only_this_run"]["total"], removed = p["only_baseline"]["total"];
  const bool same =
      added + removed <= std::max<uint64_t>(1, (p["both"].get<uint64_t>() + added) / 100);
  const bool same_count =
      std::abs(net("prefetch")) <= noise("prefetch") && std::abs(net("read")) <= noise("read");
  const int64_t timing = p["only_baseline"]["read"].value("load_running", int64_t{0}) +
                         p["only_baseline"]["read"].value("prefetch_queued", int64_t{0});
  const bool kept = std::abs(net("prefetch")) <= noise("prefetch") &&
                    net("read") < -noise("read") && timing >= -net("read") &&
                    p["only_baseline_blame"]["environment"].get<int64_t>() >= -net("read");
  EXPECT_NE(page.find(same         ? "Same misses as the baseline"
                      : same_count ? "Same answer as the baseline"
                      : kept       ? "Speed-up kept the answer"
                                   : "Speed-up changed the answer"),
            std::string::npos);
  // compare puts the two runs' misses side by side, by blame.
  const std::string json = (dir.path() / "cmp.json").string();
  const Ran c = run("compare " + base + " " + fast + " --no-html --json " + json, dir);
  ASSERT_EQ(c.code, 0) << c.err;
  const nlohmann::json cmp = nlohmann::json::parse(read_file(json));
  EXPECT_EQ(cmp["misses"]["total"]["a"].get<uint64_t>(), base_total);
  EXPECT_EQ(cmp["misses"]["total"]["b"], m["total"]);
  EXPECT_EQ(cmp["misses"]["only_this_run"]["b"], p["only_this_run"]["total"]);
  EXPECT_NE(c.out.find("Misses (attribution: keys by blame)"), std::string::npos) << c.out;
}

// --noise-baseline: a second reference run (here the baseline's misses.csv with 2 prefetch and
// all 5 read misses left out, as a rerun that missed fewer would write it) is paired with the
// baseline before the run; how far the two are apart lands in the summary and on the page, and
// the flag alone, or a second run without a miss log, is refused naming the flag.
TEST(MissAttribution, ASecondBaselineIsMeasuredAgainstTheFirstForTheVerdictsTolerance) {
  ScratchDir dir;
  const std::string trace = gen_trace(dir);
  const std::string base = (dir.path() / "base").string(), rerun = (dir.path() / "rerun").string();
  ASSERT_EQ(run(trace + kEngine + " --classify-misses --output-dir " + base, dir).code, 0);
  std::filesystem::create_directories(rerun);
  {
    std::istringstream in(read_file(base + "/misses.csv"));
    std::ofstream out(rerun + "/misses.csv");
    int prefetch_left_out = 0;
    for (std::string line; std::getline(in, line);) {
      if (line.find(",read,") != std::string::npos) continue;
      if (line.find(",prefetch,") != std::string::npos && prefetch_left_out < 2) {
        ++prefetch_left_out;
        continue;
      }
      out << line << "\n";
    }
  }
  const uint64_t reads = summary_of(base)["misses"]["read"]["write_locked"].get<uint64_t>();
  ASSERT_GT(reads, 0u);
  const std::string out = (dir.path() / "paired").string();
  const Ran r = run(trace + kEngine + " --baseline " + base + " --noise-baseline " + rerun +
                        " --output-dir " + out,
                    dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json noise = summary_of(out)["misses"]["baseline"]["noise"];
  ASSERT_TRUE(noise.is_object()) << summary_of(out)["misses"].dump();
  EXPECT_EQ(noise["run"], rerun);
  EXPECT_EQ(noise["prefetch"], 2);
  EXPECT_EQ(noise["read"], reads);
  EXPECT_EQ(noise["traded"], 2 + reads);
  EXPECT_NE(r.out.find(rerun + ": prefetch misses 2 apart"), std::string::npos) << r.out;
  EXPECT_NE(read_file(out + "/report.html").find("Two baselines apart"), std::string::npos);

  const Ran alone = run(trace + kEngine + " --noise-baseline " + rerun + " --output-dir " +
                            (dir.path() / "x").string(),
                        dir);
  EXPECT_EQ(alone.code, 2);
  EXPECT_NE(alone.err.find("--noise-baseline requires --baseline"), std::string::npos) << alone.err;
  const std::string empty = (dir.path() / "empty").string();
  std::filesystem::create_directories(empty);
  const Ran no_log = run(trace + kEngine + " --baseline " + base + " --noise-baseline " + empty +
                             " --output-dir " + (dir.path() / "y").string(),
                         dir);
  EXPECT_EQ(no_log.code, 2);
  EXPECT_NE(no_log.err.find("--noise-baseline " + empty + ": no misses.csv there"),
            std::string::npos)
      << no_log.err;
}

TEST(MissAttribution, ABaselineWithoutAMissLogIsRefusedBeforeTheRun) {
  ScratchDir dir;
  const std::string trace = gen_trace(dir);
  const std::string plain = (dir.path() / "plain").string();
  ASSERT_EQ(run(trace + kEngine + " --output-dir " + plain, dir).code, 0);
  const Ran r =
      run(trace + kEngine + " --baseline " + plain + " --output-dir " + (dir.path() / "x").string(),
          dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--baseline " + plain +
                       ": no misses.csv there: run the baseline with "
                       "--classify-misses"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace fleet::test
