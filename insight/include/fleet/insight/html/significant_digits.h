// Four significant digits, the precision of the page's charts (a 64-node page stays near
// 1.3 MB). The value is exactly what printf("%.4g") then strtod give: the page's numbers do
// not depend on which of the two ways below computed them.
#pragma once

namespace fleet::report::html {

// printf's "%.4g" read back (the definition; ~700 instructions a value). A value whose
// four digits lie past the largest double (above 1.7975e308) is returned as it is.
double round4_by_text(double v);

// The same value from two correctly rounded operations, and the text route wherever those
// could disagree with it (within 1e-7 of a tie, exponents beyond 1e±22).
double round4(double v);

}  // namespace fleet::report::html
