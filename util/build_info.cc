#include "fleet/util/build_info.h"

namespace fleet::util {

const char* build_id() { return FLEET_BUILD_ID; }

}  // namespace fleet::util
