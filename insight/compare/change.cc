#include "fleet/insight/compare/change.h"

#include <cmath>
#include <limits>

namespace fleet::compare {

std::optional<double> Change::relative() const {
  if (!comparable()) return std::nullopt;
  if (*a == 0) {
    if (*b == 0) return 0.0;
    return *b > 0 ? std::numeric_limits<double>::infinity()
                  : -std::numeric_limits<double>::infinity();
  }
  return (*b - *a) / std::fabs(*a);
}

Significance Change::significance() const {
  if (!comparable() || !ci) return Significance::kUnknown;
  if (ci->contains_zero()) return Significance::kNotSignificant;
  if (const auto rel = relative(); noise > 0 && rel && std::fabs(*rel) < noise) {
    return Significance::kNotSignificant;
  }
  return ci->low > 0 ? Significance::kIncrease : Significance::kDecrease;
}

const char* significance_label(Significance s) {
  switch (s) {
    case Significance::kNotSignificant:
      return "no significant change";
    case Significance::kIncrease:
      return "increase";
    case Significance::kDecrease:
      return "decrease";
    case Significance::kUnknown:
      break;
  }
  return "";
}

}  // namespace fleet::compare
