// A two-element JSON array ([x, y]: a CDF point, a series sample) built in place. The brace
// form `array_t{x, y}` builds each element in an initializer list and then copies it into the
// array: ~70 more instructions a point (callgrind, 1M points), and a report holds thousands.
#pragma once

#include <utility>

namespace fleet::util {

template <class Json, class X, class Y>
typename Json::array_t json_pair(X&& x, Y&& y) {
  typename Json::array_t p(2);
  p[0] = std::forward<X>(x);
  p[1] = std::forward<Y>(y);
  return p;
}

}  // namespace fleet::util
