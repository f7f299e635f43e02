#include "fleet/stats/l2_failures_json.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "fleet/util/json_number.h"

namespace fleet::stats {

namespace {

double seconds(int64_t ns) { return static_cast<double>(ns) / 1e9; }

int64_t nanoseconds(const nlohmann::json& v, const char* what) {
  const double s = util::json_real(v, what);
  if (std::fabs(s) > 9e9) throw std::invalid_argument(std::string(what) + ": out of range");
  return std::llround(s * 1e9);
}

std::string text_field(const nlohmann::json& r, const char* key) {
  const nlohmann::json& v = r.at(key);
  if (!v.is_string()) throw std::invalid_argument(std::string(key) + ": expected a string");
  return bounded_error_text(v.get_ref<const std::string&>());
}

L2FailureRecord record_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::invalid_argument("expected an object");
  L2FailureRecord r;
  r.adapter = util::json_integer<uint16_t>(j.at("adapter"), "adapter");
  r.type = text_field(j, "type");
  r.failed = util::json_integer<uint64_t>(j.at("failed"), "failed");
  const nlohmann::json& ops = j.at("ops");
  if (!ops.is_object()) throw std::invalid_argument("ops: expected an object");
  uint64_t sum = 0;
  for (auto it = ops.begin(); it != ops.end(); ++it) {
    size_t k = 0;
    while (k < kL2OpKindNames.size() && kL2OpKindNames[k] != it.key()) ++k;
    if (k == kL2OpKindNames.size()) throw std::invalid_argument("ops: unknown kind " + it.key());
    r.by_op[k] = util::json_integer<uint64_t>(it.value(), "ops");
    if (r.by_op[k] > r.failed - sum) throw std::invalid_argument("ops: more than failed");
    sum += r.by_op[k];
  }
  if (sum != r.failed || r.failed == 0)
    throw std::invalid_argument("ops do not add up to failed, or nothing failed");
  r.first_ns = nanoseconds(j.at("first_s"), "first_s");
  r.last_ns = nanoseconds(j.at("last_s"), "last_s");
  r.first_error = text_field(j, "first_error");
  r.last_error = text_field(j, "last_error");
  r.nodes = util::json_integer_or<uint64_t>(j, "nodes", uint64_t{1}, "nodes");  // merged only
  return r;
}

}  // namespace

nlohmann::ordered_json l2_failures_json(const std::vector<L2FailureRecord>& records, bool merged) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const L2FailureRecord& r : records) {
    nlohmann::ordered_json ops = nlohmann::ordered_json::object();
    for (size_t k = 0; k < r.by_op.size(); ++k)
      if (r.by_op[k]) ops[std::string(kL2OpKindNames[k])] = r.by_op[k];
    nlohmann::ordered_json j = {{"adapter", r.adapter},
                                {"type", r.type},
                                {"failed", r.failed},
                                {"ops", std::move(ops)},
                                {"first_s", seconds(r.first_ns)},
                                {"first_error", r.first_error},
                                {"last_s", seconds(r.last_ns)},
                                {"last_error", r.last_error}};
    if (merged) j["nodes"] = r.nodes;
    out.push_back(std::move(j));
  }
  return out;
}

std::vector<L2FailureRecord> l2_failures_from_json(const nlohmann::json& j) {
  if (!j.is_array()) throw std::invalid_argument("l2_failures: expected an array");
  if (j.size() > kMaxL2FailureRecords)
    throw std::invalid_argument("l2_failures: more than " + std::to_string(kMaxL2FailureRecords) +
                                " records");
  std::vector<L2FailureRecord> out;
  for (size_t i = 0; i < j.size(); ++i) {
    try {
      out.push_back(record_from_json(j[i]));
    } catch (const std::exception& e) {
      throw std::invalid_argument("l2_failures[" + std::to_string(i) + "]: " + e.what());
    }
  }
  return out;
}

}  // namespace fleet::stats
