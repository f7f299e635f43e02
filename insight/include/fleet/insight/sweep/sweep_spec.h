// What a --sweep asks for (docs/sweep.md): axes `NAME=V1,V2,...` (repeatable: the grid is their
// product), one variant per point of the grid, and the goal that names the best variant.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "fleet/util/status.h"

namespace fleet::sweep {

struct SweepAxis {
  std::string name;  // a coordinator flag without dashes: l1-size-gb, speed, l2-adapter, ...
  std::vector<std::string> values;
};

struct Variant {
  std::string label;  // "l1-size-gb=4,speed=2": its output directory's name
  std::vector<std::pair<std::string, std::string>> values;  // (flag name, value), axis order
};

// "NAME=V1,V2,...": values split at commas outside JSON brackets and quotes, so an adapter's
// JSON may be a value. Errors name the spec.
Result<SweepAxis> parse_sweep_axis(const std::string& spec);
// The grid's points, first axis slowest. A value that is not a short plain word is labelled by
// its index (l2-adapter#1), so a label is always a safe directory name.
std::vector<Variant> expand_grid(const std::vector<SweepAxis>& axes);
// The variant's L2 key namespace: its label with every other character as '_' ("sweep-...").
std::string key_namespace(const Variant& v);

struct SweepGoal {
  std::string metric;  // "cache.l1_l2_hit_rate", "<op>.p99", "records_per_s", "lateness.p99"
  bool maximize = true;
};
// "METRIC:max" or "METRIC:min"; default for a rate or throughput is max, for latency min.
Result<SweepGoal> parse_sweep_goal(const std::string& spec);

}  // namespace fleet::sweep
