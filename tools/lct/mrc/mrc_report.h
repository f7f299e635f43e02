// What `lct mrc` prints and writes, built from a computed curve: the text table for stdout,
// the CSV (`size_bytes,miss_ratio,byte_miss_ratio,accesses,misses`) and the JSON document
// (docs/lct.md § lct mrc).
#pragma once

#include <string>
#include <vector>

#include "mrc/knees.h"
#include "mrc/miss_ratio_curve.h"
#include "mrc/mrc_stream.h"

namespace fleet::mrc {

struct MrcReport {
  std::string file;
  const AccessStream& stream;  // counts only (its accesses may have been released)
  const MissRatioCurve& curve;
  std::vector<CurvePoint> points;
  std::vector<Knee> knees;
};

std::string render_table(const MrcReport& r);
std::string render_csv(const MrcReport& r);
std::string render_json(const MrcReport& r);

}  // namespace fleet::mrc
