// JSON parsing with the file and field named in every message (nesting depth checked first,
// duplicate keys refused), read_json_file (gzip read transparently), JsonFields and json_num.
#include "io/json_read.hpp"

#include "io/files.hpp"
#include "io/gzip.hpp"
#include "io/numbers.hpp"

#include <cmath>
#include <cstdlib>
#include <new>
#include <set>
#include <vector>

namespace rbd {

namespace {

// Raised from the parser callback on a key given twice in one object (nlohmann keeps the last
// silently; a document that says two things of one field is malformed). key: its field path.
struct DuplicateKey {
  std::string key;
};

// Raised on a string (a key or a value) holding U+0000: every name and file name rbdref reads is
// used as a C string somewhere (a file opened, a name handed to an engine), where it would end early.
struct NulInString {
  std::string field;
};

}  // namespace

// nlohmann's parser does not recurse, but dump() and copies of a value do, one frame per level:
// a document nested ~100 000 levels deep would overflow the stack (found by fuzzing). Checked
// first, by a scan that skips strings; the byte where it goes too deep is named.
void check_json_depth(const std::string& text, const std::string& path) {
  constexpr int kMaxDepth = 256;
  int depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxDepth)
        throw InputError(path, "byte " + std::to_string(i + 1), "expected arrays and objects nested at most 256 levels deep");
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

json parse_json_text(const std::string& raw, const std::string& file) {
  check_json_depth(raw, file);
  const bool bom = raw.compare(0, 3, "\xEF\xBB\xBF") == 0;
  // Where the parser is, as a field path ("samples[2].inputs.q[0]"), so that a duplicate key, a
  // bare NaN or a number beyond a double is reported at its field: one frame per open object
  // (its keys and the current one) or array (the index of the current element).
  struct Frame {
    bool array = false;
    size_t index = 0;
    std::string key;
    std::set<std::string> keys;
  };
  std::vector<Frame> open;
  auto path = [&open] {
    std::string p;
    for (const Frame& f : open) {
      if (f.array) p += "[" + std::to_string(f.index) + "]";
      else if (!f.key.empty()) p += (p.empty() ? "" : ".") + f.key;
    }
    return p;
  };
  auto element_done = [&open] {  // a value is complete: the next error is not in it
    if (open.empty()) return;
    if (open.back().array) ++open.back().index;
    else open.back().key.clear();
  };
  auto cb = [&](int /*depth*/, json::parse_event_t ev, json& parsed) {
    switch (ev) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        open.emplace_back();
        open.back().array = ev == json::parse_event_t::array_start;
        break;
      case json::parse_event_t::key:
        if (!open.empty()) {
          open.back().key = parsed.get<std::string>();
          if (open.back().key.find('\0') != std::string::npos) throw NulInString{path()};
          if (!open.back().keys.insert(open.back().key).second) throw DuplicateKey{path()};
        }
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        if (!open.empty()) open.pop_back();
        element_done();
        break;
      case json::parse_event_t::value:
        if (parsed.is_string() && parsed.get_ref<const std::string&>().find('\0') != std::string::npos) throw NulInString{path()};
        element_done();
        break;
    }
    return true;
  };
  try {
    return json::parse(bom ? raw.begin() + 3 : raw.begin(), raw.end(), cb);
  } catch (const NulInString& n) {
    std::string field;
    for (char c : n.field) field += c == '\0' ? std::string("\\u0000") : std::string(1, c);
    throw InputError(file, field, "expected a string without U+0000 (\\u0000 would end it early where it is used)");
  } catch (const DuplicateKey& d) {
    throw InputError(file, d.key, "key given twice in one object (expected each field once)");
  } catch (const json::parse_error& e) {
    throw InputError(file, path(), std::string("expected valid JSON (") + e.what() + ")");
  } catch (const json::exception& e) {  // e.g. out_of_range 406: a number beyond a double's range
    throw InputError(file, path(), std::string("expected valid JSON with numbers within the range of a double (") + e.what() +
                                       "; write larger numbers as decimal strings)");
  }
}

json read_json_file(const std::string& path, std::size_t kind_bound) {
  try {
    const std::string text = read_text_file(path, kind_bound);
    return parse_json_text(is_gzip(text) ? gunzip(text, path, kind_bound) : text, path);
  } catch (const std::bad_alloc&) {  // within the bound, beyond what this process may allocate
    throw InputError(path, "", "out of memory reading it (the process may not have what a document this large needs: ulimit -v, "
                               "a container's limit); lower RBDREF_MAX_INPUT_BYTES to refuse such files up front, or give it more memory");
  }
}

Num json_num(const json& j, const std::string& file, const std::string& field, bool beyond_double) {
  if (j.is_number()) {
    const double v = j.get<double>();
    if (!std::isfinite(v)) throw InputError(file, field, "expected a finite number");
    return Num::exact(v);
  }
  if (j.is_string()) {
    const std::string s = j.get<std::string>();
    if (!is_decimal(s)) throw InputError(file, field, "expected a finite decimal number, got \"" + s + "\"");
    if (!beyond_double && !std::isfinite(std::strtod(s.c_str(), nullptr)))
      throw InputError(file, field, "expected a number within the range of a double, got \"" + s + "\"");
    // A model is checked in long double (load_model): a nonzero number that rounds to 0 there
    // would pass the check with the sign or zero-ness it does not have at a wider precision.
    if (beyond_double && std::strtold(s.c_str(), nullptr) == 0.0L && decimal_mantissa_nonzero(s))
      throw InputError(file, field, "a nonzero number below the range of long double (about 1e-4950), in which models are checked, got \"" +
                                        s + "\" (write 0 if zero is meant)");
    return Num::decimal(s);
  }
  throw InputError(file, field, std::string("expected a number or a decimal string, got ") + j.type_name());
}

const json& JsonFields::at(const json& obj, const std::string& key, const std::string& path) const {
  if (!obj.is_object()) throw InputError(file, path, "expected an object");
  auto it = obj.find(key);
  if (it == obj.end()) throw InputError(file, path.empty() ? key : path + "." + key, "missing field");
  return *it;
}

std::string JsonFields::str(const json& obj, const std::string& key, const std::string& path) const {
  const json& j = at(obj, key, path);
  if (!j.is_string()) throw InputError(file, path.empty() ? key : path + "." + key, "expected a string");
  return j.get<std::string>();
}

void known_fields(const json& obj, const std::vector<const char*>& keys, const std::string& file, const std::string& path) {
  if (!obj.is_object()) return;
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    std::string list;
    bool known = false;
    for (const char* k : keys) {
      known = known || it.key() == k;
      list += (list.empty() ? "" : ", ") + std::string(k);
    }
    if (!known)
      throw InputError(file, path.empty() ? it.key() : path + "." + it.key(), "unknown field (expected one of " + list + ")");
  }
}

}  // namespace rbd
