// JSON documents too large to hold: a document whose large values are written while the document
// is written, not stored in it. `rbdref eval` on a 2000-body chain has 2·10⁶-entry H and L; as a
// JSON DOM and then as one dumped string they took gigabytes (docs/benchmarks.md, "Scale").
//
//   DeferredJson dj;
//   doc["H"] = dj.defer([&](std::ostream& out, const std::string& indent) { write_rows(out, indent, ...); });
//   write_file_atomic(path, [&](std::ostream& out) { dj.write(doc, 2, out); });
//
// The text is doc.dump(indent) with each placeholder replaced by its writer's output, which must be
// one JSON value.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace rbd {

class DeferredJson {
 public:
  // out: the stream; indent: the indentation of the line on which the value starts.
  using Writer = std::function<void(std::ostream& out, const std::string& indent)>;
  // A placeholder (a string no input produces) to put where `w` writes its value.
  nlohmann::ordered_json defer(Writer w);
  // doc.dump(indent) (or dump_rows(doc, indent) when `rows`) into `out`, each placeholder replaced
  // by its writer's text. A placeholder left out of the document is simply not written; one that
  // occurs twice is written twice.
  void write(const nlohmann::ordered_json& doc, int indent, std::ostream& out, bool rows = false) const;

 private:
  std::vector<Writer> writers_;
};

// j as j.dump(indent) writes it, except that an array whose elements are all scalars (strings,
// numbers, booleans, null) stands on one line, "[a, b, c]": a vector, or a matrix's row, per line.
// Fixtures are written so (a 36-DoF sample: 53 KB instead of 69 KB of one entry per line).
std::string dump_rows(const nlohmann::ordered_json& j, int indent);

// The placeholder string for deferred value k: control characters that dump() writes as \u0001 and
// \u0002, around a name no document field carries.
std::string json_placeholder(size_t k);

// Walks text that dump() made (pretty or compact) of a document holding placeholders: the text
// between them goes to text(begin, end) (offsets into `dumped`), each placeholder k < count to
// value(k, indent) with the indentation (spaces) of the line it stands on. A placeholder k ≥ count,
// or text that only looks like one, is text.
void split_at_placeholders(const std::string& dumped, size_t count, const std::function<void(size_t, size_t)>& text,
                           const std::function<void(size_t, size_t)>& value);

// A row-major rows x cols matrix as a JSON array of rows, one row per line (indent + two spaces):
// entry(k) gives entry k's JSON text. rows = 0 writes [].
void write_json_rows(std::ostream& out, const std::string& indent, size_t rows, size_t cols,
                     const std::function<void(std::ostream&, size_t)>& entry);

}  // namespace rbd
