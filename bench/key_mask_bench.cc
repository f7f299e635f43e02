// A worker's part of a split call (key sharding, docs/sharding.md): decoded with only the keys
// its mask keeps (codecs.h, KeyMask) against the way parts were decoded before, the whole
// record and then a compaction to the kept keys (what replay/decoded_stream.cc's
// apply_key_mask still does for an op its source decoded whole). A prefetch of K keys, masks
// keeping every Nth key as a fleet of N workers would give each one; both ways interleaved in
// rounds, CPU time per record, the ratio masked / whole of the rounds' medians.
//
//   key_mask_bench [--keys 256] [--records 20000] [--rounds 7] [--workers 2,8,64]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <sstream>
#include <string>
#include <vector>

#include "fleet/trace/codecs.h"
#include "fleet/trace/op_decoder.h"
#include "fleet/trace/op_encoder.h"
#include "fleet/trace/record.h"

using namespace fleet::trace;

namespace {

double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::string prefetch_body(int keys) {
  Op o;
  o.kind = OpKind::SubmitPrefetch;
  o.t_mono = 1.0;
  o.t_wall = 1e9;
  o.layout.shapes = {{2, 32, 256, 8, 128}};
  o.layout.dtypes = {DType::BFloat16};
  o.spec.group_layouts[0] = o.layout;
  for (int i = 0; i < keys; ++i) {
    ObjectKey k;
    std::string hash(32, '\0');
    for (int b = 0; b < 32; ++b) hash[b] = static_cast<char>((i * 131 + b * 7) & 0xff);
    k.chunk_hash = hash;
    k.model_name = "meta-llama/Llama-3.1-8B-Instruct";
    o.spec.keys.push_back(k);
  }
  return encode_record_body(o, Era::Three);
}

// Keys i with i % workers == 0: the share of one worker of `workers`.
std::string mask_for(int keys, int workers) {
  std::string bits((keys + 7) / 8, '\0');
  for (int i = 0; i < keys; i += workers)
    bits[i / 8] = static_cast<char>(bits[i / 8] | (1 << (i % 8)));
  return bits;
}

// The way before: the whole record, then the kept keys moved to the front.
void decode_whole_then_compact(const RecordView& rec, std::string_view mask, Op& op) {
  RecordView whole = rec;
  whole.key_mask = {};
  decode_op(whole, op);
  auto& keys = op.spec.keys;
  size_t kept = 0;
  for (size_t i = 0; i < keys.size(); ++i) {
    if ((static_cast<uint8_t>(mask[i / 8]) >> (i % 8)) & 1u) {
      if (kept != i) keys[kept] = keys[i];
      ++kept;
    }
  }
  keys.resize(kept);
}

// CPU seconds per record of `records` decodes one way; `check` counts the kept keys.
double run(const std::string& body, const std::string& mask, int keys, int records, bool masked,
           size_t& check) {
  RecordView rec;
  parse_record(reinterpret_cast<const uint8_t*>(body.data()), body.size(), rec, {}, true);
  rec.key_mask = mask;
  rec.key_mask_keys = static_cast<uint32_t>(keys);
  Op op;
  const double t0 = cpu_seconds();
  for (int i = 0; i < records; ++i) {
    if (masked) {
      decode_op(rec, op);
    } else {
      decode_whole_then_compact(rec, mask, op);
    }
    check += op.spec.keys.size();
  }
  return (cpu_seconds() - t0) / records;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int keys = 256, records = 20000, rounds = 7;
  std::vector<int> fleet_sizes = {2, 8, 64};
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--keys") {
      keys = std::atoi(argv[i + 1]);
    } else if (flag == "--records") {
      records = std::atoi(argv[i + 1]);
    } else if (flag == "--rounds") {
      rounds = std::atoi(argv[i + 1]);
    } else if (flag == "--workers") {
      fleet_sizes.clear();
      std::stringstream list(argv[i + 1]);
      for (std::string n; std::getline(list, n, ',');) fleet_sizes.push_back(std::atoi(n.c_str()));
    } else {
      std::fprintf(stderr, "key_mask_bench: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  if (keys < 1 || records < 1 || rounds < 1) {
    std::fprintf(stderr, "key_mask_bench: --keys, --records and --rounds must be >= 1\n");
    return 2;
  }
  const std::string body = prefetch_body(keys);
  std::printf("a submit_prefetch_task of %d keys (%zu bytes), %d decodes a round, %d rounds\n",
              keys, body.size(), records, rounds);
  for (const int workers : fleet_sizes) {
    const std::string mask = mask_for(keys, std::max(1, workers));
    std::vector<double> whole, masked;
    size_t kept_whole = 0, kept_masked = 0;
    for (int r = 0; r < rounds; ++r) {
      whole.push_back(run(body, mask, keys, records, false, kept_whole));
      masked.push_back(run(body, mask, keys, records, true, kept_masked));
    }
    if (kept_whole != kept_masked) {
      std::fprintf(stderr, "key_mask_bench: the two ways kept %zu and %zu keys\n", kept_whole,
                   kept_masked);
      return 1;
    }
    const double w = median(whole), m = median(masked);
    std::printf(
        "%3d workers (%zu of %d keys kept): whole + compaction %7.0f ns, masked %7.0f ns a "
        "record: masked / whole %.2f\n",
        workers, kept_masked / (static_cast<size_t>(rounds) * records), keys, w * 1e9, m * 1e9,
        m / w);
  }
  return 0;
}
