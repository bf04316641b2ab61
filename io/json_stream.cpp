#include "io/json_stream.hpp"

namespace rbd {

namespace {
// The placeholder's text: control characters that dump() writes as \u0001 and \u0002, around a
// name no document field carries.
const char kOpen[] = "\x01rbdref-deferred-";
const char kClose = '\x02';
const std::string kOpenDumped = "\"\\u0001rbdref-deferred-";
const std::string kCloseDumped = "\\u0002\"";
}  // namespace

nlohmann::ordered_json DeferredJson::defer(Writer w) {
  writers_.push_back(std::move(w));
  return std::string(kOpen) + std::to_string(writers_.size() - 1) + kClose;
}

void DeferredJson::write(const nlohmann::ordered_json& doc, int indent, std::ostream& out) const {
  const std::string text = doc.dump(indent);
  size_t at = 0;
  for (;;) {
    const size_t p = text.find(kOpenDumped, at);
    const size_t num = p == std::string::npos ? p : p + kOpenDumped.size();
    const size_t e = p == std::string::npos ? p : text.find(kCloseDumped, num);
    size_t k = 0;
    bool ok = e != std::string::npos && e > num && e - num < 10;
    for (size_t i = num; ok && i < e; ++i) {
      ok = text[i] >= '0' && text[i] <= '9';
      k = k * 10 + static_cast<size_t>(text[i] - '0');
    }
    if (!ok || k >= writers_.size()) {  // no more placeholders (or text that only looks like one)
      if (p == std::string::npos) {
        out.write(text.data() + at, static_cast<std::streamsize>(text.size() - at));
        return;
      }
      out.write(text.data() + at, static_cast<std::streamsize>(num - at));
      at = num;
      continue;
    }
    out.write(text.data() + at, static_cast<std::streamsize>(p - at));
    const size_t line = text.rfind('\n', p);
    const size_t start = line == std::string::npos ? 0 : line + 1;
    size_t spaces = 0;
    while (start + spaces < p && text[start + spaces] == ' ') ++spaces;
    writers_[k](out, std::string(spaces, ' '));
    at = e + kCloseDumped.size();
  }
}

void write_json_rows(std::ostream& out, const std::string& indent, size_t rows, size_t cols,
                     const std::function<void(std::ostream&, size_t)>& entry) {
  if (rows == 0) {
    out << "[]";
    return;
  }
  out << "[\n";
  for (size_t i = 0; i < rows; ++i) {
    out << indent << "  [";
    for (size_t j = 0; j < cols; ++j) {
      if (j) out << ", ";
      entry(out, i * cols + j);
    }
    out << (i + 1 < rows ? "],\n" : "]\n");
  }
  out << indent << "]";
}

}  // namespace rbd
