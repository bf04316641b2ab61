#include "io/json_stream.hpp"

#include <algorithm>

namespace rbd {

namespace {
const char kOpen[] = "\x01rbdref-deferred-";
const char kClose = '\x02';
const std::string kOpenDumped = "\"\\u0001rbdref-deferred-";
const std::string kCloseDumped = "\\u0002\"";
}  // namespace

std::string json_placeholder(size_t k) { return std::string(kOpen) + std::to_string(k) + kClose; }

void split_at_placeholders(const std::string& dumped, size_t count, const std::function<void(size_t, size_t)>& text,
                           const std::function<void(size_t, size_t)>& value) {
  size_t at = 0;
  for (;;) {
    const size_t p = dumped.find(kOpenDumped, at);
    if (p == std::string::npos) break;
    const size_t num = p + kOpenDumped.size();
    const size_t e = dumped.find(kCloseDumped, num);
    size_t k = 0;
    bool ok = e != std::string::npos && e > num && e - num < 10;
    for (size_t i = num; ok && i < e; ++i) {
      ok = dumped[i] >= '0' && dumped[i] <= '9';
      k = k * 10 + static_cast<size_t>(dumped[i] - '0');
    }
    if (!ok || k >= count) {  // text that only looks like a placeholder
      text(at, num);
      at = num;
      continue;
    }
    text(at, p);
    const size_t line = dumped.rfind('\n', p);
    const size_t start = line == std::string::npos ? 0 : line + 1;
    size_t spaces = 0;
    while (start + spaces < p && dumped[start + spaces] == ' ') ++spaces;
    value(k, spaces);
    at = e + kCloseDumped.size();
  }
  text(at, dumped.size());
}

nlohmann::ordered_json DeferredJson::defer(Writer w) {
  writers_.push_back(std::move(w));
  return json_placeholder(writers_.size() - 1);
}

namespace {

bool is_scalar_array(const nlohmann::ordered_json& j) {
  for (const auto& e : j)
    if (e.is_structured()) return false;
  return true;
}

void dump_rows_into(const nlohmann::ordered_json& j, size_t indent, size_t level, std::string& out) {
  if (!j.is_structured()) {
    out += j.dump();
  } else if (j.empty()) {
    out += j.is_object() ? "{}" : "[]";
  } else if (j.is_array() && is_scalar_array(j)) {
    out += '[';
    for (size_t k = 0; k < j.size(); ++k) {
      if (k) out += ", ";
      out += j[k].dump();
    }
    out += ']';
  } else {
    out += j.is_object() ? "{\n" : "[\n";
    size_t k = 0;
    for (auto it = j.begin(); it != j.end(); ++it, ++k) {
      out.append((level + 1) * indent, ' ');
      if (j.is_object()) {
        out += nlohmann::ordered_json(it.key()).dump();
        out += ": ";
      }
      dump_rows_into(it.value(), indent, level + 1, out);
      out += k + 1 < j.size() ? ",\n" : "\n";
    }
    out.append(level * indent, ' ');
    out += j.is_object() ? '}' : ']';
  }
}

}  // namespace

std::string dump_rows(const nlohmann::ordered_json& j, int indent) {
  std::string out;
  dump_rows_into(j, static_cast<size_t>(std::max(indent, 0)), 0, out);
  return out;
}

void DeferredJson::write(const nlohmann::ordered_json& doc, int indent, std::ostream& out, bool rows) const {
  const std::string text = rows ? dump_rows(doc, indent) : doc.dump(indent);
  split_at_placeholders(
      text, writers_.size(),
      [&](size_t b, size_t e) { out.write(text.data() + b, static_cast<std::streamsize>(e - b)); },
      [&](size_t k, size_t spaces) { writers_[k](out, std::string(spaces, ' ')); });
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
