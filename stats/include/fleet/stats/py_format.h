// Python number formatting used by the LMCache-compatible writers, without iostreams and
// (for the per-record paths) without heap allocation: round(x, n), "%.Nf". Float repr is
// util::py_float_repr_to (fleet/util/pyjson.h).
#pragma once

#include <cstddef>
#include <string>

namespace fleet::stats {

// Python round(x, ndigits): the correctly rounded decimal with `ndigits` places (ties to even
// on the exact binary value), converted back to the nearest double. NaN/inf pass through.
double py_round(double x, int ndigits);

// Python f"{x:.{decimals}f}" (same as "%.*f"): correctly rounded; "inf", "-inf", "nan".
std::string py_fixed(double x, int decimals);

// Number of code points in UTF-8 text: Python len() of the decoded str, which is what
// column arithmetic (padding, centring) counts.
std::size_t py_len(const std::string& utf8);

}  // namespace fleet::stats
