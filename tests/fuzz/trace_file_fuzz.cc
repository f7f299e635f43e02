// Untrusted input: a whole `.lct` file, read as the replay and the fleet planner read it
// (FrameReader with deferred args checks, then decode_op / scan_record per record, malformed
// records handed back through reject_malformed), plus the header's sm_config_json as
// --config-from-trace parses it. TraceError, DecodeError and the config's documented
// exceptions are expected; any crash, sanitizer report, other exception, leak, hang or
// out-of-memory is a bug.
#include <spdlog/spdlog.h>

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "fleet/engine/engine_config_json.h"
#include "fleet/trace/errors.h"
#include "fleet/trace/frame_reader.h"
#include "fleet/trace/op_decoder.h"
#include "fuzz_util.h"

namespace {

class CountingReporter final : public fleet::trace::Reporter {
 public:
  void warning(uint64_t, std::string_view) override { ++warnings; }
  uint64_t warnings = 0;
};

void replay_pass(const std::string& path) {
  using namespace fleet::trace;
  CountingReporter reporter;
  ReaderOptions ro;
  ro.reporter = &reporter;
  ro.defer_args_check = true;   // as local_run.cc and fleet_run.cc open the trace
  ro.buffer_bytes = 64 * 1024;  // the reader's floor: inputs larger than it exercise refills
  // Every other input through the read-ahead ring, with blocks small enough that frames
  // straddle them, outgrow the headroom and span blocks (read_ahead.h).
  static bool ahead = false;
  ahead = !ahead;
  ro.read_ahead = ahead;
  ro.read_ahead_min_file_bytes = 0;
  ro.read_ahead_block_bytes = 512;
  FrameReader reader(path, ro);
  if (!reader.header().sm_config_json.empty()) {
    // --config-from-trace (coordinator_cli.cc): a refusal is a Result, never an exception.
    const auto j =
        fleet::storage::parse_engine_config_json(reader.header().sm_config_json, "sm_config_json");
    if (j) (void)fleet::storage::engine_config_from_lmcache_json(j.value());
  }
  RecordView rec;
  Op op;
  ScanInfo scan;
  bool use_scan = false;
  try {
    while (reader.next(rec)) {
      use_scan = !use_scan;
      try {
        if (use_scan) {
          scan_record(rec, scan);  // the planner's walk (shard_router.cc)
        } else {
          decode_op(rec, op);  // the replay's (replay_session.cc)
        }
      } catch (const MalformedRecord& e) {
        reader.reject_malformed(rec, e.what());
      } catch (const DecodeError&) {
      }
    }
  } catch (const TraceError&) {  // an oversized length prefix
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = fleet::fuzz::input_file(data, size);
  try {
    replay_pass(path);
  } catch (const fleet::trace::TraceError&) {  // unusable header
  }
  return 0;
}
