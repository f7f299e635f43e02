// UTF-8 validation as Python's decoder applies it (msgspec rejects a `str` that is not valid
// UTF-8): no overlong forms, no surrogates (U+D800..U+DFFF), nothing above U+10FFFF. The trace
// reader uses it for qualnames, header strings and record keys so a corrupt string makes the
// frame malformed instead of leaking bytes into JSON output.
#pragma once

#include <string_view>

namespace fleet::util {

bool is_valid_utf8(std::string_view s);

}  // namespace fleet::util
