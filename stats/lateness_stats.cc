#include "fleet/stats/lateness_stats.h"

#include <algorithm>
#include <stdexcept>

#include "fleet/util/json_number.h"

namespace fleet::stats {

void LatenessStats::merge(const LatenessStats& o) {
  if (o.count() == 0) return;
  max_ = count() ? std::max(max_, o.max_) : o.max_;
  early_ += o.early_;
  late_over_1ms_ += o.late_over_1ms_;
  hist_.merge(o.hist_);
}

nlohmann::json LatenessStats::to_json() const {
  return {{"early", early_},
          {"late_over_1ms", late_over_1ms_},
          {"max_ns", max_ns()},
          {"histogram", hist_.to_json()}};
}

LatenessStats LatenessStats::from_json(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("histogram") || !j.contains("early") ||
      !j.contains("late_over_1ms") || !j.contains("max_ns"))
    throw std::invalid_argument("LatenessStats JSON: missing field");
  LatenessStats s;
  s.hist_ = LogLinearHistogram::from_json(j["histogram"]);
  try {
    s.early_ = util::json_integer<uint64_t>(j["early"], "early");
    s.late_over_1ms_ = util::json_integer<uint64_t>(j["late_over_1ms"], "late_over_1ms");
    s.max_ = util::json_integer<int64_t>(j["max_ns"], "max_ns");
  } catch (const std::exception& e) {
    throw std::invalid_argument(std::string("LatenessStats JSON: ") + e.what());
  }
  if (s.early_ > s.count() || s.late_over_1ms_ > s.count())
    throw std::invalid_argument("LatenessStats JSON: counters exceed histogram count");
  return s;
}

}  // namespace fleet::stats
