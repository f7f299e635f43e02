// Untrusted input: a whole DONE message from a worker, taken as the coordinator takes it
// (worker_link.cc on_done: wire::decode, the Done, decode_node_result reading the samples in
// place), and then, for a result that decodes, everything the coordinator's report reads from
// it (report/outputs.cc, contention.cc, cache_summary.cc, run_report.cc, the report page). The
// property: a result decode_node_result accepts never makes the report throw, since DONE's
// whole shape is checked when it arrives (wire/node_result_shape.h). ProtocolError from
// decoding is the one expected exception; an exception from the report (reported, then
// abort), a sanitizer report, a leak, hang or out-of-memory is a bug.
#include <spdlog/spdlog.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "fleet/insight/html/report_model.h"
#include "fleet/insight/html/report_page.h"
#include "fleet/insight/report/contention.h"
#include "fleet/insight/report/outputs.h"
#include "fleet/insight/report/run_summary_of.h"
#include "fleet/summary/run_report.h"
#include "fleet/summary/run_summary_json.h"
#include "fleet/util/json_read_back.h"
#include "fleet/util/pyjson.h"
#include "fleet/wire/node_result.h"
#include "fleet/wire/protocol.h"

namespace {

using namespace fleet;

// A lost node as the coordinator makes one (fleet_run_report.cc lost_node): the report then has
// two nodes, so the terminal summary's per-node section and the merges run too.
wire::NodeResult lost_node() {
  wire::NodeResult n;
  n.name = "lost";
  n.status = wire::NodeStatus::Lost;
  n.engine_counters = {{"lost_reason", "no heartbeat for 1500 ms"},
                       {"records_confirmed_finished", 3}};
  return n;
}

// Every output the coordinator writes from its nodes, in memory.
void render_everything(const report::RunReport& rep) {
  report::render_l2_windows_csv(rep);
  report::render_nodes_csv(rep);
  report::render_fleet_block(rep);
  report::render_lmcache_summary(rep, "terminal");
  report::render_lmcache_summary(rep, "json");
  const nlohmann::ordered_json summary = summary::to_json(report::run_summary_of(rep));
  const std::string text = util::py_json_dumps_indent(summary, 2);
  report::html::RunFiles files;
  files.dir = "fuzz";
  if (auto read_back = util::json_as_read_back(summary, text.size())) {
    files.summary = summary::from_json(*read_back);
  } else {
    files.problems.push_back("fleet_summary.json does not read back");
  }
  report::html::render_report_html(report::html::build_report_model(files));
}

void report_over(wire::NodeResult node) {
  report::RunReport rep;
  rep.mode = "fleet";
  node.address = "127.0.0.1:5555";
  std::vector<wire::NodeResult> nodes;
  nodes.push_back(std::move(node));
  nodes.push_back(lost_node());
  try {
    report::add_nodes(rep, std::move(nodes));
    render_everything(rep);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "the report threw on a result decode_node_result accepted: %s\n",
                 e.what());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // An 8-byte aligned copy, kept alive by the decoded stats as the received message is.
  std::shared_ptr<double[]> owned(new double[size / sizeof(double) + 1]);
  std::memcpy(owned.get(), data, size);
  wire::NodeResult node;
  try {
    const wire::Envelope env = wire::decode(owned.get(), size);
    if (env.kind != wire::MessageType::Done) return 0;
    const auto d = env.as<wire::Done>();
    node = wire::decode_node_result(std::string_view(d.result.ptr, d.result.size), owned);
  } catch (const wire::ProtocolError&) {
    return 0;
  }
  report_over(std::move(node));
  return 0;
}
