// The arguments of rbdref._core's public functions (python/bindings.cpp), each checked by name
// before anything is computed or copied: InputError(function, argument, what was expected), as the
// command line names an option. A string holding NUL is refused (it would end the string early
// where rbdref uses it, a path or a message).
#pragma once

#include "certify/memory.hpp"
#include "io/input_error.hpp"
#include "io/json_read.hpp"
#include "io/model_io.hpp"

#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>

namespace rbd::python {

namespace py = pybind11;

inline std::string type_name(const py::handle& v) {
  return v.is_none() ? "None" : py::str(v.attr("__class__").attr("__name__")).cast<std::string>();
}

// A user's string in a message: NUL written \0, long ones cut.
inline std::string shown(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (out.size() > 200) return out + "...'";
    out += c == '\0' ? std::string("\\0") : std::string(1, c);
  }
  return out + "'";
}

inline std::string string_arg(const py::handle& v, const std::string& fn, const std::string& arg, const std::string& what = "a string",
                       bool nonempty = false) {
  if (!py::isinstance<py::str>(v)) throw InputError(fn, arg, "expected " + what + ", got " + type_name(v));
  const std::string t = v.cast<std::string>();
  if (t.find('\0') != std::string::npos) throw InputError(fn, arg, "expected " + what + " without NUL, got " + shown(t));
  if (nonempty && t.empty()) throw InputError(fn, arg, "expected " + what + ", got an empty string");
  return t;
}

// A path: str, bytes or os.PathLike (as the file system spells it), without NUL. optional: None and
// "" are "no file" ("").
inline std::string path_arg(const py::handle& v, const std::string& fn, const std::string& arg, bool optional = false) {
  if (optional && v.is_none()) return "";
  if (!py::isinstance<py::str>(v) && !py::isinstance<py::bytes>(v) && !py::hasattr(v, "__fspath__"))
    throw InputError(fn, arg, "expected a path (str or os.PathLike), got " + type_name(v));
  std::string t;
  try {
    t = py::module_::import("os").attr("fsencode")(v).cast<std::string>();
  } catch (py::error_already_set& e) {
    throw InputError(fn, arg, std::string("expected a path (str or os.PathLike): ") + e.what());
  }
  if (t.find('\0') != std::string::npos) throw InputError(fn, arg, "expected a path without NUL, got " + shown(t));
  if (t.empty() && !optional) throw InputError(fn, arg, "expected a path, got an empty string");
  return t;
}

inline bool bool_arg(const py::handle& v, const std::string& fn, const std::string& arg) {
  if (py::isinstance<py::bool_>(v)) return v.cast<bool>();
  if (py::isinstance(v, py::module_::import("numpy").attr("bool_"))) return py::bool_(py::reinterpret_borrow<py::object>(v));
  throw InputError(fn, arg, "expected True or False, got " + type_name(v));
}

// An integer (int or a numpy integer; not a bool) from lo to hi.
inline std::uint64_t int_arg(const py::handle& v, const std::string& fn, const std::string& arg, std::uint64_t lo, std::uint64_t hi) {
  const std::string expected = "expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
  if (PyBool_Check(v.ptr()) || !PyIndex_Check(v.ptr())) throw InputError(fn, arg, expected + ", got " + type_name(v));
  const py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(v.ptr()));
  if (!i) throw py::error_already_set();
  const unsigned long long u = PyLong_AsUnsignedLongLong(i.ptr());
  if (PyErr_Occurred()) {  // negative, or beyond 64 bits
    PyErr_Clear();
    throw InputError(fn, arg, expected + ", got " + py::str(i).cast<std::string>());
  }
  if (u < lo || u > hi) throw InputError(fn, arg, expected + ", got " + std::to_string(u));
  return u;
}

// max_memory: None (the command line's default: RBDREF_MAX_MEMORY, else 3/4 of the memory), a
// number of bytes, or a size with K, M, G or T ("8G"), as --max-memory takes it.
inline std::string memory_arg(const py::handle& v, const std::string& fn) {
  if (v.is_none()) return "";
  const std::string t = py::isinstance<py::str>(v) ? string_arg(v, fn, "max_memory")
                                                   : std::to_string(int_arg(v, fn, "max_memory", 1, UINT64_MAX));
  try {
    memory_limit(t);
  } catch (const InputError&) {
    throw InputError(fn, "max_memory", "expected a size in bytes, or with a K, M, G or T suffix (e.g. \"8G\"), got " + shown(t));
  }
  return t;
}

// The memory guard of the command line (certify/memory.hpp) before a model is evaluated: refused at
// once with the estimate and the limit, the advice in the module's words.
inline void memory_guard(const LoadedModel& lm, const Precision& p, const std::string& max_memory, int at_once, bool prove) {
  try {
    check_model_memory(lm.file, lm.desc, p, max_memory, at_once, prove ? Proving::yes : Proving::no);
  } catch (const InputError& e) {
    std::string m = e.what();
    const std::string prefix = e.file() + ": " + (e.field().empty() ? "" : e.field() + ": ");
    if (m.compare(0, prefix.size(), prefix) == 0) m.erase(0, prefix.size());
    for (const auto& [cli, py] : {std::pair<std::string, std::string>{"--max-memory SIZE", "max_memory=SIZE"},
                                  {"--max-memory ", "max_memory="}, {"a smaller --precision", "a smaller precision"},
                                  {"--precision double", "precision=\"double\""}, {"(fixture --threads)", "(threads=)"},
                                  {"--prove", "prove=True"}})
      for (size_t at = 0; (at = m.find(cli, at)) != std::string::npos; at += py.size()) m.replace(at, cli.size(), py);
    throw InputError(e.file(), e.field(), m);
  }
}

// A Python value as JSON data, by the rules of rbdref's readers (io/json_read.hpp: no NaN or
// infinity, no NUL in a string, 256 levels deep at most); `what` names it in errors.
inline json json_arg(const py::handle& v, const std::string& fn, const std::string& arg) {
  std::string text;
  try {
    text = py::module_::import("json").attr("dumps")(v, py::arg("allow_nan") = false).cast<std::string>();
  } catch (py::error_already_set& e) {
    throw InputError(fn, arg, std::string("expected JSON data (dict, list, str, finite numbers, True, False, None): ") + e.what());
  }
  return parse_json_text(text, fn + " " + arg);
}

}  // namespace rbd::python
