#include "fleet/stats/miss_summary.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "fleet/util/json_number.h"

namespace fleet::stats {

namespace {

uint64_t sum(const MissCounts& c) {
  uint64_t n = 0;
  for (const auto& where : c)
    for (uint64_t v : where) n += v;
  return n;
}

nlohmann::json counts_json(const MissCounts& c) {
  nlohmann::json j = {{"total", sum(c)}};
  for (size_t w = 0; w < kMissWhereCount; ++w) {
    nlohmann::json by_class = nlohmann::json::object();
    for (size_t k = 0; k < kMissClassCount; ++k)
      if (c[w][k] != 0) by_class[miss_class_name(static_cast<MissClass>(k))] = c[w][k];
    j[miss_where_name(static_cast<MissWhere>(w))] = by_class;
  }
  return j;
}

// Unknown class names are skipped: a newer Fleet's classes must not make the file unreadable.
MissCounts counts_of(const nlohmann::json& j) {
  MissCounts c{};
  for (size_t w = 0; w < kMissWhereCount; ++w) {
    const auto it = j.find(miss_where_name(static_cast<MissWhere>(w)));
    if (it == j.end() || !it->is_object()) continue;
    for (const auto& [name, v] : it->items())
      if (auto cls = miss_class_from_name(name))
        c[w][static_cast<size_t>(*cls)] = util::json_integer<uint64_t>(v, "misses." + name);
  }
  return c;
}

auto order(const MissEvent& e) { return std::tuple(e.record, e.key, e.where); }

using BlameCounts = std::array<uint64_t, kMissBlameCount>;

nlohmann::json blame_json(const BlameCounts& b) {
  nlohmann::json j = nlohmann::json::object();
  for (size_t i = 0; i < kMissBlameCount; ++i) j[miss_blame_name(static_cast<MissBlame>(i))] = b[i];
  return j;
}

BlameCounts blame_of_json(const nlohmann::json& j) {
  BlameCounts b{};
  for (size_t i = 0; i < kMissBlameCount; ++i) {
    const std::string name(miss_blame_name(static_cast<MissBlame>(i)));
    b[i] = util::json_integer_or<uint64_t>(j, name.c_str(), uint64_t{0},
                                           "misses.baseline.only_baseline_blame." + name);
  }
  return b;
}

}  // namespace

uint64_t MissPairing::only_this_run_total() const { return sum(only_this_run); }
uint64_t MissPairing::only_baseline_total() const { return sum(only_baseline); }

uint64_t MissSummary::total(MissWhere w) const {
  uint64_t n = 0;
  for (uint64_t v : counts[static_cast<size_t>(w)]) n += v;
  return n;
}

std::array<uint64_t, kMissBlameCount> MissSummary::blame() const {
  std::array<uint64_t, kMissBlameCount> b{};
  for (const auto& where : counts)
    for (size_t k = 0; k < kMissClassCount; ++k)
      b[static_cast<size_t>(blame_of(static_cast<MissClass>(k), sped_up, engine_follows_trace,
                                     partial_schedule))] += where[k];
  return b;
}

void MissSummary::merge(const MissSummary& o) {
  sped_up = sped_up || o.sped_up;
  engine_follows_trace = engine_follows_trace || o.engine_follows_trace;
  partial_schedule = partial_schedule || o.partial_schedule;
  for (size_t w = 0; w < kMissWhereCount; ++w)
    for (size_t k = 0; k < kMissClassCount; ++k) counts[w][k] += o.counts[w][k];
  dropped += o.dropped;
}

nlohmann::json MissSummary::to_json() const {
  nlohmann::json j = counts_json(counts);
  j["sped_up"] = sped_up;
  j["engine_follows_trace"] = engine_follows_trace;
  j["partial_schedule"] = partial_schedule;
  j["dropped"] = dropped;
  j["blame"] = blame_json(blame());
  if (baseline) {
    j["baseline"] = {{"run", baseline->baseline},
                     {"both", baseline->both},
                     {"only_this_run", counts_json(baseline->only_this_run)},
                     {"only_baseline", counts_json(baseline->only_baseline)},
                     {"fell_behind", baseline->baseline_fell_behind}};
    if (baseline->baseline_lateness_p99_us)
      j["baseline"]["lateness_p99_us"] = *baseline->baseline_lateness_p99_us;
    if (baseline->only_baseline_blame)
      j["baseline"]["only_baseline_blame"] = blame_json(*baseline->only_baseline_blame);
    if (const auto& n = baseline->noise) {
      j["baseline"]["noise"] = {
          {"run", n->run}, {"prefetch", n->prefetch}, {"read", n->read}, {"traded", n->traded}};
    }
  }
  return j;
}

MissSummary MissSummary::from_json(const nlohmann::json& j) {
  MissSummary s;
  s.counts = counts_of(j);
  s.sped_up = j.value("sped_up", false);
  s.engine_follows_trace = j.value("engine_follows_trace", false);
  s.partial_schedule = j.value("partial_schedule", false);
  s.dropped = util::json_integer_or<uint64_t>(j, "dropped", uint64_t{0}, "misses.dropped");
  if (const auto it = j.find("baseline"); it != j.end() && it->is_object()) {
    MissPairing p;
    p.baseline = it->value("run", "");
    p.both = util::json_integer_or<uint64_t>(*it, "both", uint64_t{0}, "misses.baseline.both");
    if (it->contains("only_this_run")) p.only_this_run = counts_of((*it)["only_this_run"]);
    if (it->contains("only_baseline")) p.only_baseline = counts_of((*it)["only_baseline"]);
    p.baseline_fell_behind = it->value("fell_behind", false);
    if (const auto l = it->find("lateness_p99_us"); l != it->end() && l->is_number())
      p.baseline_lateness_p99_us = l->get<double>();
    if (const auto b = it->find("only_baseline_blame"); b != it->end() && b->is_object())
      p.only_baseline_blame = blame_of_json(*b);
    if (const auto n = it->find("noise"); n != it->end() && n->is_object()) {
      auto field = [&](const char* name) {
        return util::json_integer_or<uint64_t>(*n, name, uint64_t{0},
                                               std::string("misses.baseline.noise.") + name);
      };
      p.noise = MissNoise{n->value("run", ""), field("prefetch"), field("read"), field("traded")};
    }
    s.baseline = std::move(p);
  }
  return s;
}

void sort_misses(std::vector<MissEvent>& events) {
  std::sort(events.begin(), events.end(),
            [](const MissEvent& a, const MissEvent& b) { return order(a) < order(b); });
}

MissPairing pair_misses(std::vector<MissEvent> run, std::vector<MissEvent> baseline) {
  sort_misses(run);
  sort_misses(baseline);
  MissPairing p;
  auto only = [](MissCounts& c, const MissEvent& e) {
    ++c[static_cast<size_t>(e.where)][static_cast<size_t>(e.cls)];
  };
  size_t i = 0, k = 0;
  while (i < run.size() && k < baseline.size()) {
    if (run[i].same_miss(baseline[k])) {
      ++p.both;
      ++i;
      ++k;
    } else if (order(run[i]) < order(baseline[k])) {
      only(p.only_this_run, run[i++]);
    } else {
      only(p.only_baseline, baseline[k++]);
    }
  }
  for (; i < run.size(); ++i) only(p.only_this_run, run[i]);
  for (; k < baseline.size(); ++k) only(p.only_baseline, baseline[k]);
  return p;
}

MissNoise miss_noise(std::vector<MissEvent> baseline, std::vector<MissEvent> second,
                     std::string run) {
  const MissPairing p = pair_misses(std::move(baseline), std::move(second));
  auto apart = [&](MissWhere w) {
    uint64_t a = 0, b = 0;
    for (uint64_t v : p.only_this_run[static_cast<size_t>(w)]) a += v;
    for (uint64_t v : p.only_baseline[static_cast<size_t>(w)]) b += v;
    return a > b ? a - b : b - a;
  };
  return MissNoise{std::move(run), apart(MissWhere::Prefetch), apart(MissWhere::Read),
                   p.only_this_run_total() + p.only_baseline_total()};
}

}  // namespace fleet::stats
