#include "fleet/l2replay/l2_prepare.h"

#include <nlohmann/json.hpp>
#include <unordered_set>

#include "fleet/util/pyjson.h"

namespace fleet::l2replay {

namespace {
constexpr size_t kBatchKeys = 64;  // the fork's batch
}

Result<L2PrepareResult> prepare_l2(const L2Plan& plan, L2Target& target, double drain_timeout_s) {
  util::Clock& clock = target.clock();
  const int64_t start = clock.now_ns();
  L2PrepareResult r;
  std::unordered_set<uint64_t> pending;
  for (size_t at = 0; at < plan.prepare.size(); at += kBatchKeys) {
    std::vector<trace::ObjectKey> keys;
    std::vector<uint64_t> sizes;
    for (size_t i = at; i < std::min(plan.prepare.size(), at + kBatchKeys); ++i) {
      keys.push_back(plan.prepare[i].key);
      sizes.push_back(plan.prepare[i].size);
      r.prepared_bytes += plan.prepare[i].size;
    }
    r.prepared_objects += keys.size();
    pending.insert(target.adapter().submit_store(std::move(keys), std::move(sizes)));
  }
  const int64_t deadline = clock.now_ns() + static_cast<int64_t>(drain_timeout_s * 1e9);
  std::vector<storage::L2Completion> done;
  while (!pending.empty()) {
    done.clear();
    target.take_due(clock.now_ns(), done);
    for (const auto& c : done) {
      if (pending.erase(c.task_id) == 0) continue;
      (c.success ? r.store_tasks_succeeded : r.store_tasks_failed) += 1;
    }
    if (pending.empty()) break;
    if (clock.now_ns() >= deadline) {
      return Status::error("L2 prepare timed out with " + std::to_string(pending.size()) +
                           " task(s)");
    }
    if (done.empty()) target.wait(deadline);
  }
  r.elapsed_seconds = static_cast<double>(clock.now_ns() - start) / 1e9;
  return r;
}

std::string prepare_manifest_json(const L2PrepareResult& r) {
  nlohmann::json j;
  j["prepared_objects"] = r.prepared_objects;
  j["prepared_bytes"] = r.prepared_bytes;
  j["store_tasks_succeeded"] = r.store_tasks_succeeded;
  j["store_tasks_failed"] = r.store_tasks_failed;
  j["elapsed_seconds"] = r.elapsed_seconds;
  return util::py_json_dumps_indent(j, 2) + "\n";
}

}  // namespace fleet::l2replay
