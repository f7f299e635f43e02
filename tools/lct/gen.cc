// `lct gen`: writes a deterministic synthetic trace (fleet/trace/synthetic_trace.h) and prints
// a one-line summary to stderr.
#include <cstdio>
#include <exception>

#include "fleet/trace/errors.h"
#include "fleet/util/status.h"
#include "lct.h"

namespace fleet::lct {

ExitCode run_gen(const GenArgs& a) {
  if (Status st = trace::validate_synthetic_options(a.options); !st) {
    print_error("gen", st.message());
    return st.code();
  }
  trace::SyntheticStats s;
  try {
    s = trace::write_synthetic_trace(a.output, a.options);
  } catch (const trace::TraceError& e) {
    print_error("gen", e.what());
    return ExitCode::kBadInput;
  } catch (const std::exception& e) {
    print_error("gen", e.what());
    return ExitCode::kRecordsFailed;
  }
  if (!a.quiet) {
    uint64_t chunks = s.hit_chunks + s.miss_chunks;
    std::fprintf(
        stderr,
        "lct gen: wrote %s: %llu records, %llu requests, %llu conversations, %.3fs, "
        "%llu bytes, era %d, chunk hit rate %.1f%%%s\n",
        a.output.c_str(), static_cast<unsigned long long>(s.records),
        static_cast<unsigned long long>(s.requests),
        static_cast<unsigned long long>(s.conversations), s.last_t_mono,
        static_cast<unsigned long long>(s.bytes), static_cast<int>(a.options.era),
        chunks ? 100.0 * static_cast<double>(s.hit_chunks) / static_cast<double>(chunks) : 0.0,
        a.options.era == trace::Era::Four
            ? " (no submit_prefetch_task: era-4 prefetch has no codec)"
            : "");
  }
  return ExitCode::kOk;
}

}  // namespace fleet::lct
