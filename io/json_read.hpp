// Reading JSON documents: parsing with the file named in every message (nesting depth, duplicate
// keys, numbers beyond a double refused), field access, and number fields as model numbers.
#pragma once

#include "io/input_error.hpp"
#include "reference/tree/model.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace rbd {

using json = nlohmann::json;

// Field access for the readers of JSON documents: every error names the file and the field path
// ("samples[2].inputs.q"). Readers of each format derive from it and add their own shapes.
struct JsonFields {
  const std::string& file;
  // obj[key]; InputError "missing field" (or "expected an object") naming path.key.
  const json& at(const json& obj, const std::string& key, const std::string& path) const;
  // obj[key] as a string; InputError "expected a string" otherwise.
  std::string str(const json& obj, const std::string& key, const std::string& path) const;
};

// Every key of obj (when it is an object) one of `keys`; InputError naming path.key, "unknown field
// (expected one of ...)", otherwise.
void known_fields(const json& obj, const std::vector<const char*>& keys, const std::string& file, const std::string& path);

// Reads and parses a JSON file; InputError on a missing file, a syntax error (with position), a
// number out of the range of a double, or a key given twice in one object.
// kind_bound: files.hpp's bound for the document's kind (kLargeInput, kModelInput, kSmallInput).
// The file is parsed as it is read, 64 KiB at a time, a gzip file as it inflates: what is held is
// what the document keeps, not its text. A NUL byte, or nesting deeper than 256 levels, is refused
// at its byte ("byte N"); whitespace is not stored (json_read.cpp, JsonText).
json read_json_file(const std::string& path, std::size_t kind_bound = std::size_t(1) << 30);
// The same for text already read (`file` names it in messages). A UTF-8 byte-order mark is skipped.
json parse_json_text(const std::string& text, const std::string& file);
// The same for the bytes of a file as read_text_file read them: gzip inflated as it is parsed,
// never whole, within max_input_bytes(kind_bound). Json: json, or nlohmann::ordered_json to keep
// the order of the keys.
template <class Json = json>
Json parse_json_bytes(const std::string& bytes, const std::string& file, std::size_t kind_bound = std::size_t(1) << 30);
extern template json parse_json_bytes<json>(const std::string&, const std::string&, std::size_t);
extern template nlohmann::ordered_json parse_json_bytes<nlohmann::ordered_json>(const std::string&, const std::string&, std::size_t);

// A number field of a JSON document: a JSON number (an exact binary double) or a string of
// decimal text. Throws InputError naming file and field otherwise (NaN/Inf are not numbers).
// Models may hold decimal strings beyond a double's range (read at the precisions that hold
// them: beyond_double = true); states, fixtures and engine outputs may not.
Num json_num(const json& j, const std::string& file, const std::string& field, bool beyond_double = false);

}  // namespace rbd
