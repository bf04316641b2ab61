// JSON parsing with the file and field named in every message (as the text is read: JsonText;
// duplicate keys refused), read_json_file (gzip inflated as it is parsed), JsonFields and json_num.
#include "io/json_read.hpp"

#include "io/files.hpp"
#include "io/gzip.hpp"
#include "io/numbers.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <istream>
#include <new>
#include <set>
#include <streambuf>
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

// A reader of a document's bytes: up to n of them into out, 0 at the end.
using ReadBytes = std::function<std::size_t(char* out, std::size_t n)>;

// The text of a JSON document on its way to the parser, read 64 KiB at a time (a file's bytes,
// inflated as they come when it is gzip), so that a reader holds what the document keeps and not
// the text: what no JSON text holds is refused at its byte, what the parser need not see is not
// given to it (docs/formats.md, "Inputs are bounded"):
//  - a NUL byte (U+0000 is written \u0000 in JSON text): nlohmann takes one for the end of the
//    input, so that a document followed by a NUL and anything used to be read as the document,
//    and 1 GiB of NULs in a gzip was inflated whole before it was refused;
//  - arrays and objects nested more than 256 levels deep: nlohmann's parser does not recurse, but
//    dump() and copies of a value do, one frame per level, and a document nested ~100 000 levels
//    deep overflowed the stack (found by fuzzing);
//  - a UTF-16 byte-order mark (a UTF-8 one is dropped);
//  - whitespace outside strings is not all given: of a run, the first kBlanks bytes go to the
//    parser and the rest is dropped. nlohmann's lexer keeps every byte since the last string or
//    number for its messages ("last read: ..."): 300 MB of spaces were held as the text and again
//    by the lexer.
// The parser counts the bytes it is given; position() maps such a count back to the line and
// column of the file, for its messages. "byte N" counts the file's bytes (a byte-order mark too).
class JsonText : public std::streambuf {
 public:
  JsonText(ReadBytes read, const std::string& file) : read_(std::move(read)), file_(file), out_(kChunk) {
    for (Chunk& c : chunks_) c.raw.resize(kChunk);
  }

  // The line and column, as nlohmann counts them (a newline is column 0 of the line it ends), in
  // the file of the k-th byte given to the parser (from 1), or past the end of the text when k is
  // beyond it; false when that byte is no longer held (the parser is at most one byte behind what
  // it was given, and the chunk before the current one is kept).
  bool position(std::uint64_t k, std::uint64_t& line, std::uint64_t& column) const {
    if (k == 0) return false;
    if (k > scan_.given) {
      if (!ended_) return false;
      line = scan_.line, column = scan_.column + 1;
      return true;
    }
    for (const Chunk& c : chunks_) {
      if (c.size == 0 || k <= c.start.given || k > c.given_end) continue;
      Scan s = c.start;
      char* none = nullptr;
      scan<true>(c.raw.data() + c.skip, c.size - c.skip, s, none, k);
      line = s.line, column = s.column;
      return true;
    }
    return false;
  }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    for (;;) {
      if (ended_) return traits_type::eof();
      // The parser has taken the whole current chunk: the older one is read over.
      Chunk& c = chunks_[1 - cur_];
      c.size = 0;
      do {  // at least the 3 bytes of a byte-order mark at the start, when there are
        const std::size_t got = read_(c.raw.data() + c.size, kChunk - c.size);
        if (got == 0) break;
        c.size += got;
      } while (scan_.byte == 0 && c.size < 3);
      if (c.size == 0) {
        ended_ = true;
        return traits_type::eof();
      }
      c.skip = 0;
      if (scan_.byte == 0) {
        const std::string head(c.raw.data(), std::min<std::size_t>(c.size, 3));
        if (head.compare(0, 2, "\xFF\xFE") == 0 || head.compare(0, 2, "\xFE\xFF") == 0)
          throw InputError(file_, "", "expected UTF-8 text, got a UTF-16 byte-order mark (convert the file to UTF-8)");
        if (head == "\xEF\xBB\xBF") c.skip = 3, scan_.byte = 3;
      }
      c.start = scan_;
      char* o = out_.data();
      scan<false>(c.raw.data() + c.skip, c.size - c.skip, scan_, o, 0);
      c.given_end = scan_.given;
      if (o == out_.data()) continue;  // whitespace only, dropped
      cur_ = 1 - cur_;
      setg(out_.data(), out_.data(), o);
      return traits_type::to_int_type(out_[0]);
    }
  }

 private:
  static constexpr std::size_t kChunk = std::size_t(1) << 16, kBlanks = 64;
  static constexpr int kMaxDepth = 256;
  struct Scan {  // where the scan is, after the bytes it has seen
    std::uint64_t byte = 0;              // bytes of the file
    std::uint64_t line = 1, column = 0;  // of the last byte seen (after a byte-order mark)
    std::uint64_t given = 0;             // bytes given to the parser
    std::size_t blanks = 0;              // the current run of whitespace outside strings
    int depth = 0;
    bool in_string = false, escaped = false;
  };
  struct Chunk {  // a chunk of the file and the scan before it, to find a position in it again
    std::vector<char> raw;
    std::size_t size = 0, skip = 0;  // skip: a byte-order mark at its start
    Scan start;
    std::uint64_t given_end = 0;
  };

  // Scans raw[0, n) on from s, appending what the parser is given at out. Replay: what was
  // scanned before (nothing is thrown or written), stopping once byte `stop` has been given.
  template <bool Replay>
  void scan(const char* raw, std::size_t n, Scan& s, char*& out, std::uint64_t stop) const {
    for (std::size_t i = 0; i < n; ++i) {
      const char c = raw[i];
      ++s.byte;
      if (!Replay && c == '\0')
        throw InputError(file_, "byte " + std::to_string(s.byte),
                         "expected UTF-8 JSON text, got a NUL byte (never part of JSON text, where U+0000 is written \\u0000; "
                         "a file in UTF-16, or not text)");
      if (c == '\n') ++s.line, s.column = 0;
      else ++s.column;
      bool give = true;
      if (s.in_string) {
        if (s.escaped) s.escaped = false;
        else if (c == '\\') s.escaped = true;
        else if (c == '"') s.in_string = false;
      } else if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
        give = ++s.blanks <= kBlanks;
      } else {
        s.blanks = 0;
        if (c == '"') {
          s.in_string = true;
        } else if (c == '[' || c == '{') {
          if (++s.depth > kMaxDepth && !Replay)
            throw InputError(file_, "byte " + std::to_string(s.byte), "expected arrays and objects nested at most 256 levels deep");
        } else if (c == ']' || c == '}') {
          --s.depth;
        }
      }
      if (!give) continue;
      ++s.given;
      if (Replay) {
        if (s.given == stop) return;
      } else {
        *out++ = c;
      }
    }
  }

  ReadBytes read_;
  const std::string& file_;
  Scan scan_;
  Chunk chunks_[2];
  int cur_ = 0;  // the chunk the parser is reading
  std::vector<char> out_;
  bool ended_ = false;
};

// nlohmann's message with the position in the file: "parse error at line L, column C: ...".
std::string at_file_position(const json::parse_error& e, const JsonText& text) {
  const std::string what = e.what();
  const size_t at = what.find(" at line "), colon = what.find(": ", at == std::string::npos ? 0 : at);
  std::uint64_t line = 0, column = 0;
  if (at == std::string::npos || colon == std::string::npos || !text.position(e.byte, line, column)) return what;
  return what.substr(0, at) + " at line " + std::to_string(line) + ", column " + std::to_string(column) + what.substr(colon);
}

// The document `read` gives (`file` names it in messages), parsed as it is read.
template <class Json>
Json parse_json_from(ReadBytes read, const std::string& file) {
  JsonText text(std::move(read), file);
  std::istream in(&text);
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
  auto cb = [&](int /*depth*/, typename Json::parse_event_t ev, Json& parsed) {
    switch (ev) {
      case Json::parse_event_t::object_start:
      case Json::parse_event_t::array_start:
        open.emplace_back();
        open.back().array = ev == Json::parse_event_t::array_start;
        break;
      case Json::parse_event_t::key:
        if (!open.empty()) {
          open.back().key = parsed.template get<std::string>();
          if (open.back().key.find('\0') != std::string::npos) throw NulInString{path()};
          if (!open.back().keys.insert(open.back().key).second) throw DuplicateKey{path()};
        }
        break;
      case Json::parse_event_t::object_end:
      case Json::parse_event_t::array_end:
        if (!open.empty()) open.pop_back();
        element_done();
        break;
      case Json::parse_event_t::value:
        if (parsed.is_string() && parsed.template get_ref<const std::string&>().find('\0') != std::string::npos)
          throw NulInString{path()};
        element_done();
        break;
    }
    return true;
  };
  try {
    return Json::parse(in, cb);
  } catch (const NulInString& n) {
    std::string field;
    for (char c : n.field) field += c == '\0' ? std::string("\\u0000") : std::string(1, c);
    throw InputError(file, field, "expected a string without U+0000 (\\u0000 would end it early where it is used)");
  } catch (const DuplicateKey& d) {
    throw InputError(file, d.key, "key given twice in one object (expected each field once)");
  } catch (const json::parse_error& e) {
    throw InputError(file, path(), "expected valid JSON (" + at_file_position(e, text) + ")");
  } catch (const json::exception& e) {  // e.g. out_of_range 406: a number beyond a double's range
    throw InputError(file, path(), std::string("expected valid JSON with numbers within the range of a double (") + e.what() +
                                       "; write larger numbers as decimal strings)");
  }
}

// Text in memory, a chunk at a time.
ReadBytes text_reader(const std::string& text) {
  return [&text, at = std::size_t(0)](char* out, std::size_t n) mutable {
    const std::size_t k = std::min(n, text.size() - at);
    std::memcpy(out, text.data() + at, k);
    at += k;
    return k;
  };
}

}  // namespace

json parse_json_text(const std::string& raw, const std::string& file) { return parse_json_from<json>(text_reader(raw), file); }

template <class Json>
Json parse_json_bytes(const std::string& bytes, const std::string& file, std::size_t kind_bound) {
  if (!is_gzip(bytes)) return parse_json_from<Json>(text_reader(bytes), file);
  GunzipReader gz(bytes, file, kind_bound);
  return parse_json_from<Json>([&gz](char* out, std::size_t n) { return gz.read(out, n); }, file);
}
template json parse_json_bytes<json>(const std::string&, const std::string&, std::size_t);
template nlohmann::ordered_json parse_json_bytes<nlohmann::ordered_json>(const std::string&, const std::string&, std::size_t);

json read_json_file(const std::string& path, std::size_t kind_bound) {
  try {
    const std::size_t limit = check_input_file(path, kind_bound);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, "", "cannot open the file for reading");
    char magic[2] = {0, 0};
    in.read(magic, 2);
    const bool gzip = in.gcount() == 2 && is_gzip(std::string(magic, 2));
    in.clear();
    in.seekg(0);  // a regular file (check_input_file)
    if (gzip) {
      GunzipReader gz(in, path, kind_bound);
      return parse_json_from<json>([&gz](char* out, std::size_t n) { return gz.read(out, n); }, path);
    }
    // Bounded as it is read too (a file that grows while it is read), as read_text_file.
    return parse_json_from<json>(
        [&in, &path, limit, total = std::uint64_t(0)](char* out, std::size_t n) mutable {
          in.read(out, static_cast<std::streamsize>(n));
          const std::size_t got = static_cast<std::size_t>(in.gcount());
          if (in.bad()) throw InputError(path, "", "read error");
          if ((total += got) > limit)
            throw InputError(path, "", "more than the input limit of " + std::to_string(limit) +
                                           " bytes (RBDREF_MAX_INPUT_BYTES raises it; docs/formats.md)");
          return got;
        },
        path);
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
