#include "fleet/coordinator/sweep/sweep_flags.h"

namespace fleet::sweep {

void add_sweep_flags(CLI::App& app, SweepFlags& f) {
  app.add_option("--sweep", f.axes,
                 "NAME=V1,V2,...: one run per value of a coordinator flag (repeat for a grid), "
                 "side by side on disjoint worker groups (docs/sweep.md)");
  app.add_option("--sweep-goal", f.goal, "METRIC[:max|:min] that names the best variant");
  app.add_option("--sweep-mrc", f.mrc,
                 "`lct mrc --json` of the trace: sweep.html draws the curve under the variants");
  app.add_flag("--sweep-shared-l2", f.shared_l2,
               "Let the variants share L2 keys (contention studies); default: a namespace each");
}

}  // namespace fleet::sweep
