// UTF-8 well-formedness of text that goes into the JSON outputs (file names, names read from models).
#pragma once

#include <cstddef>
#include <string>

namespace rbd {

// Offset of the first byte of `s` that is not well-formed UTF-8 (RFC 3629: no overlong forms, no
// surrogates), or npos. Everything written into a JSON output must be UTF-8.
size_t first_invalid_utf8(const std::string& s);

}  // namespace rbd
