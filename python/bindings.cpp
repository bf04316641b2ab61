// rbdref._core: the library as a Python extension (pybind11). The user-facing API is the package
// python/rbdref/__init__.py, which wraps these types; docs/python.md documents it.
//
// What crosses the boundary:
//   * numbers an engine computed or a fixture stores as inputs: numpy float64 arrays (exact doubles),
//     or arrays of decimal strings for an engine at an extended precision;
//   * reference values: decimal strings with every digit of the working scalar, never rounded to
//     double on the way (the package offers float64 views for convenience);
//   * documents (eval, report, registry): their JSON text, as the command line writes them.
// Bad input raises rbdref.InputError (file, field, what was expected), as the command line's exit
// status 2; a model problem rbdref.ModelError; an engine that refuses a model rbdref.EngineError.
// Long computations release the GIL.
#include "certify/evaluate.hpp"
#include "certify/memory.hpp"
#include "engines/adapter.hpp"
#include "engines/values.hpp"
#include "python/arguments.hpp"
#include "fixtures/fixture.hpp"
#include "io/files.hpp"
#include "io/input_error.hpp"
#include "io/json_read.hpp"
#include "io/quantities.hpp"
#include "io/text.hpp"
#include "reference/tree/errors.hpp"
#include "reports/compare.hpp"
#include "reports/eval_document.hpp"
#include "reports/reference_of.hpp"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <memory>
#include <optional>
#include <sstream>

namespace py = pybind11;

namespace rbd::python {

namespace {

// The reference quantity `name` of a sample: "loops.X", "contacts.X", or what compare scores an
// engine quantity against (reports/reference_of.hpp: H, C, ..., tau_c, contact_lambda, ...).
const Quantity* reference_quantity(const Sample& s, const std::string& name) {
  if (name.rfind("loops.", 0) == 0) return s.ref.find_loop(name.substr(6));
  if (name.rfind("contacts.", 0) == 0) return s.ref.find_contact(name.substr(9));
  return reference_of(s, name);
}

py::array_t<double> array_of(const std::vector<double>& v) {
  py::array_t<double> a(static_cast<py::ssize_t>(v.size()));
  std::copy(v.begin(), v.end(), a.mutable_data());
  a.attr("flags").attr("writeable") = false;
  return a;
}

// A reference quantity as a dict the package turns into rbdref.Value.
py::dict quantity_dict(const Quantity& q) {
  py::dict d;
  d["name"] = q.name;
  py::tuple shape = q.rows == 0 && q.cols == 0 ? py::tuple() : q.cols == 0 ? py::make_tuple(q.rows) : py::make_tuple(q.rows, q.cols);
  d["shape"] = shape;
  d["text"] = q.texts();
  d["entry_digits"] = q.digits;
  d["digits"] = q.normwise_digits;
  d["proven_digits"] = q.proven_digits >= 0 ? py::object(py::int_(q.proven_digits)) : py::object(py::none());
  d["scale"] = q.scale.empty() ? py::object(py::none()) : py::object(py::str(q.scale));
  return d;
}

struct PyFixture {
  std::shared_ptr<Fixture> f;
  std::string path;
  std::vector<std::string> inputs;  // the files it was read or made from (outputs may not replace them)
};

struct PySample {
  std::shared_ptr<Fixture> f;  // keeps the fixture alive
  const Sample* s;
};

// The quantities' names of a sample, as reference_quantity takes them.
std::vector<std::string> sample_quantities(const Sample& s) {
  std::vector<std::string> out;
  for (const Quantity& q : s.ref.quantities) out.push_back(q.name);
  for (const Quantity& q : s.ref.loop_quantities) out.push_back("loops." + q.name);
  for (const Quantity& q : s.ref.contact_quantities) out.push_back("contacts." + q.name);
  return out;
}

// Paths back to Python as bytes (as the file system spells them; they come back as arguments).
py::list bytes_list(const std::vector<std::string>& v) {
  py::list out;
  for (const std::string& s : v) out.append(py::bytes(s));
  return out;
}

// The fixture a function is given: a Fixture, or the path of one.
PyFixture fixture_from(const py::handle& obj, const std::string& fn, const std::string& arg = "fixture") {
  if (py::isinstance<PyFixture>(obj)) return obj.cast<PyFixture>();
  if (!py::isinstance<py::str>(obj) && !py::isinstance<py::bytes>(obj) && !py::hasattr(obj, "__fspath__"))
    throw InputError(fn, arg, std::string(arg == "path" ? "expected" : "expected a Fixture or") + " the path of a fixture file, got " + type_name(obj));
  const std::string path = path_arg(obj, fn, arg);
  PyFixture f;
  {
    py::gil_scoped_release release;
    f.f = std::make_shared<Fixture>(read_fixture_file(path));
  }
  f.path = path;
  f.inputs = {path};
  return f;
}

// ---- engine quantities from numpy --------------------------------------------------------------

// The entries an engine quantity has on the fixture's model, by its declared length
// (io/quantities.hpp): nv x nv, nv, or a length the model gives (n^c loop constraints, one per
// rigid contact, the impulse components). Checked from an array's metadata before anything is
// copied or converted.
struct QuantityBounds {
  QuantityDims dims;
  explicit QuantityBounds(const Fixture& f) : dims(contact_dims(f.model)) {
    dims.nv = static_cast<int>(f.dofs.size());
    dims.nc = model_layout(f.model).nc;
  }
  size_t most(const QuantityInfo& qi) const {
    const QuantityShape s = quantity_shape(qi.engine_length, dims);
    return static_cast<size_t>(s.cols ? s.rows * s.cols : s.rows);
  }
  std::string why(const QuantityInfo& qi) const {
    return std::string("one per ") + length_unit(qi.engine_length) + " of the model";
  }
};

std::string shape_text(const py::array& a) {
  std::string t = "(";
  for (py::ssize_t k = 0; k < a.ndim(); ++k) t += (k ? ", " : "") + std::to_string(a.shape(k));
  return t + (a.ndim() == 1 ? ",)" : ")");
}

// `v` as a numpy array without copying one (np.asarray); None, or what numpy cannot make an
// array of, is refused naming the quantity.
py::array quantity_array(const py::handle& v, const std::string& fn, const std::string& name) {
  if (v.is_none()) throw InputError(fn, name, "expected an array of numbers (or of decimal strings), got None");
  try {
    return py::module_::import("numpy").attr("asarray")(v);
  } catch (py::error_already_set& e) {
    throw InputError(fn, name, std::string("expected an array of numbers (or of decimal strings): ") + e.what());
  }
}

// The entries of `a` (its shape checked): float64 numbers (exact doubles), or decimal strings when
// it holds text. A non-finite number is not converted: `non_finite` then says which entry it is
// ("H[1, 0] is nan (not finite)"), the engine failing there.
std::vector<Num> quantity_entries(const py::array& a, const std::string& fn, const std::string& name, std::string& non_finite) {
  auto index = [&a](size_t k) {
    std::string t;
    for (py::ssize_t d = a.ndim() - 1; d >= 0; --d) {
      const size_t n = static_cast<size_t>(a.shape(d));
      t = std::to_string(k % n) + (t.empty() ? "" : ", ") + t;
      k /= n;
    }
    return "[" + t + "]";
  };
  auto bad = [&](size_t k, double x) {
    non_finite = name + index(k) + " is " + (std::isnan(x) ? "nan" : x > 0 ? "inf" : "-inf") + " (not finite)";
  };
  std::vector<Num> out;
  const char kind = a.dtype().kind();
  if (kind == 'f' || kind == 'i' || kind == 'u') {
    py::array_t<double, py::array::c_style | py::array::forcecast> d(a);
    const double* p = d.data();
    out.reserve(static_cast<size_t>(d.size()));
    for (py::ssize_t k = 0; k < d.size(); ++k) {
      if (!std::isfinite(p[k])) return bad(static_cast<size_t>(k), p[k]), std::vector<Num>();
      out.push_back(Num::exact(p[k]));
    }
    return out;
  }
  if (kind != 'U' && kind != 'S' && kind != 'O')
    throw InputError(fn, name, "expected numbers (a float64 array) or decimal strings, got an array of dtype " +
                                   py::str(a.dtype()).cast<std::string>());
  const py::object decimal = py::module_::import("decimal").attr("Decimal"), real = py::module_::import("numbers").attr("Real");
  const py::list flat = a.attr("ravel")().attr("tolist")();
  for (size_t k = 0; k < flat.size(); ++k) {
    const py::handle x = flat[k];
    const std::string at = name + index(k);
    if (py::isinstance<py::str>(x) || py::isinstance<py::bytes>(x) || py::isinstance(x, decimal)) {
      const std::string t = py::isinstance<py::bytes>(x) ? x.cast<std::string>() : py::str(x).cast<std::string>();
      if (t.find('\0') != std::string::npos) throw InputError(fn, at, "expected a decimal string without NUL, got " + shown(t));
      if (py::isinstance(x, decimal) && !is_decimal(t)) return non_finite = at + " is " + t + " (not finite)", std::vector<Num>();
      out.push_back(json_num(json(t), fn, at));
    } else if (py::isinstance(x, real) && !PyBool_Check(x.ptr())) {
      const double d = py::float_(py::reinterpret_borrow<py::object>(x));
      if (!std::isfinite(d)) return bad(k, d), std::vector<Num>();
      out.push_back(Num::exact(d));
    } else {
      throw InputError(fn, at, "expected a number or a decimal string, got " + type_name(x));
    }
  }
  return out;
}

struct PyEngineOutput {
  std::shared_ptr<Fixture> f;
  std::string fixture_path;
  std::vector<std::string> inputs;  // the files it was made from (write refuses them)
  EngineOutput e;
  std::string written;  // the file it was last written to (the report's engine file)

  // The sample `id` of the fixture (the fixture's inputs, as the engine ran them), made when first
  // named; with make = false only checked.
  EngineSample* sample(const std::string& id, const std::string& fn, bool make = true) {
    for (EngineSample& s : e.samples)
      if (s.id == id) return &s;
    const Sample* fs = f->find(id);
    if (!fs)
      throw InputError(fn, "sample", "'" + id + "' is not a sample of the fixture " + fixture_path + " (it has " + f->samples.front().id +
                                         " .. " + f->samples.back().id + ")");
    if (!make) return nullptr;
    e.samples.push_back(engine_sample_of(*fs));
    return &e.samples.back();
  }

  // Adds (or replaces) quantities of sample `id`, all or none. Each is checked before any entry is
  // copied: its name, and its shape from the array's metadata (H and L nv x nv, the nv-vectors nv;
  // lambda, contact_lambda and impact_lambda at most what the model bounds, their lengths checked
  // when compared). A non-finite entry is the engine failing on the sample: the quantity is left
  // out and the sample's error names the entry (a sample failure in every report).
  void add(const py::object& sample_arg, const py::kwargs& values) {
    const std::string fn = "EngineOutput.add";
    const std::string id = string_arg(sample_arg, fn, "sample", "a sample id (str) or a Sample", true);
    sample(id, fn, false);
    if (values.empty())
      throw InputError(fn, "", "expected at least one quantity (" + join(engine_quantities()) + "), e.g. add(s.id, H=H)");
    const QuantityBounds bounds(*f);
    const int nv = static_cast<int>(f->dofs.size());
    struct Pending {
      std::string name;
      NumMatrix m;
      std::string non_finite;
    };
    std::vector<Pending> pending;
    std::optional<json> raw;
    for (const auto& [k, v] : values) {
      const std::string name = k.cast<std::string>();
      if (name == "raw") {
        raw = json_arg(v, fn, "raw");
        if (raw->is_object() && raw->contains("engine_messages")) {
          const json& msgs = (*raw)["engine_messages"];
          if (!msgs.is_array()) throw InputError(fn, "raw.engine_messages", "expected a list of strings (the engine's warnings)");
          for (size_t i = 0; i < msgs.size(); ++i)
            if (!msgs[i].is_string()) throw InputError(fn, "raw.engine_messages[" + std::to_string(i) + "]", "expected a string");
        }
        continue;
      }
      const QuantityInfo* qi = find_quantity(name);
      if (!qi)
        throw InputError(fn, name, "not a quantity of an engine output (expected one of " + join(quantity_names()) + ")");
      const py::array a = quantity_array(v, fn, name);
      NumMatrix m;
      if (qi->engine_length == QuantityLength::kNvByNv) {
        if (a.ndim() != 2 || a.shape(0) != nv || a.shape(1) != nv)
          throw InputError(fn, name, "expected an nv x nv = " + std::to_string(nv) + " x " + std::to_string(nv) + " array, got shape " + shape_text(a));
        m.rows = m.cols = nv;
      } else {
        if (a.ndim() != 1) throw InputError(fn, name, "expected a 1-D array, got shape " + shape_text(a));
        if (qi->engine_length == QuantityLength::kNv && a.shape(0) != nv)
          throw InputError(fn, name, "expected nv = " + std::to_string(nv) + " numbers, got " + std::to_string(a.shape(0)));
        if (static_cast<size_t>(a.shape(0)) > bounds.most(*qi))
          throw InputError(fn, name, "expected at most " + std::to_string(bounds.most(*qi)) + " numbers (" + bounds.why(*qi) + "), got " +
                                         std::to_string(a.shape(0)));
        m.rows = static_cast<int>(a.shape(0));
      }
      Pending p{name, std::move(m), ""};
      p.m.v = quantity_entries(a, fn, name, p.non_finite);
      pending.push_back(std::move(p));
    }
    EngineSample& s = *sample(id, fn);
    for (Pending& p : pending) {
      if (!p.non_finite.empty()) {
        s.values.erase(p.name);
        s.error += (s.error.empty() ? "" : "; ") + p.non_finite;
      } else {
        s.values[p.name] = std::move(p.m);
      }
    }
    if (raw) s.raw = std::move(*raw);
  }
  void add_failure(const py::object& sample_arg, const py::object& why_arg) {
    const std::string fn = "EngineOutput.fail";
    const std::string id = string_arg(sample_arg, fn, "sample", "a sample id (str) or a Sample", true);
    const std::string why = string_arg(why_arg, fn, "why", "why the engine failed (a non-empty string)", true);
    EngineSample& s = *sample(id, fn);
    s.error += (s.error.empty() ? "" : "; ") + why;
  }
};

// Decimal-string lists from Python for a state: None → absent, numbers → exact doubles (as JSON
// numbers), strings → decimal text; `n` entries (nq for q, nv for the others), checked from the
// array's metadata before anything is converted.
json state_vector(const py::handle& v, const std::string& arg, size_t n, const char* of) {
  const std::string fn = "Model.eval";
  if (v.is_none()) return json();
  const std::string expected = std::string("expected an array of ") + of + " = " + std::to_string(n) + " numbers or decimal strings";
  py::array a;
  try {
    a = py::module_::import("numpy").attr("asarray")(v);
  } catch (py::error_already_set& e) {
    throw InputError(fn, arg, expected + ": " + e.what());
  }
  if (a.ndim() > 1 || static_cast<size_t>(a.size()) != n) throw InputError(fn, arg, expected + ", got shape " + shape_text(a));
  std::string non_finite;
  const std::vector<Num> nums = quantity_entries(a.ndim() == 0 ? py::array(a.attr("reshape")(1)) : a, fn, arg, non_finite);
  if (!non_finite.empty()) throw InputError(fn, arg, "expected finite numbers, got " + non_finite.substr(0, non_finite.find(" (not")));
  json out = json::array();
  for (const Num& x : nums) out.push_back(x.is_double ? json(x.value) : json(x.text));
  return out;
}

struct PyModel {
  LoadedModel lm;
  LoadOptions opt;
  std::vector<std::string> inputs;  // its files: the model, loops and contacts

  // The eval document (format rbdref.eval) of one state, as `rbdref eval` writes it.
  std::string eval(const py::object& q, const py::object& qd, const py::object& qdd, const py::object& tau, const py::object& precision_arg,
                   const py::object& actuated_arg, const py::object& impact_arg, const py::object& prove_arg, const py::object& tau_loops,
                   const py::object& contact_state, const py::object& max_memory_arg) {
    const std::string fn = "Model.eval";
    const std::string precision = string_arg(precision_arg, fn, "precision");
    const std::optional<Precision> p = Precision::parse(precision);
    if (!p) throw InputError(fn, "precision", "expected double, longdouble, float128, bin50, bin100 or mpfr:<digits>, got " + shown(precision));
    const bool impact = bool_arg(impact_arg, fn, "impact"), prove = bool_arg(prove_arg, fn, "prove");
    const std::string max_memory = memory_arg(max_memory_arg, fn);
    std::vector<std::string> actuated;
    if (py::isinstance<py::str>(actuated_arg)) actuated.push_back(string_arg(actuated_arg, fn, "actuated"));
    else if (py::isinstance<py::list>(actuated_arg) || py::isinstance<py::tuple>(actuated_arg))
      for (const py::handle& a : actuated_arg) actuated.push_back(string_arg(a, fn, "actuated", "DoF names (strings)"));
    else if (!actuated_arg.is_none())
      throw InputError(fn, "actuated", "expected \"all\" or a list of DoF names, got " + type_name(actuated_arg));
    const Model<double> layout = model_layout(lm.desc);
    memory_guard(lm, *p, max_memory, 1, prove);
    if (q.is_none()) throw InputError(fn, "q", "expected an array of nq = " + std::to_string(layout.nq) + " numbers or decimal strings, got None");
    json doc = json::object();
    doc["q"] = state_vector(q, "q", static_cast<size_t>(layout.nq), "nq");
    for (const auto& [k, v] : {std::pair<const char*, const py::object*>{"qd", &qd}, {"qdd", &qdd}, {"tau", &tau}})
      if (!v->is_none()) doc[k] = state_vector(*v, k, static_cast<size_t>(layout.nv), "nv");
    if (!tau_loops.is_none()) doc["tau_loops"] = json_arg(tau_loops, fn, "tau_loops");
    if (!contact_state.is_none()) doc["contact_state"] = json_arg(contact_state, fn, "contact_state");
    const StateDesc state = read_state(doc, "state", layout);
    if (!prove) check_angles_reducible(layout, state, *p, "state");
    if (impact && layout.contacts.empty()) throw InputError(fn, "impact", "needs a model with contacts");
    std::string spec;
    for (const std::string& a : actuated) spec += (spec.empty() ? "" : ",") + a;
    const std::vector<int> act = parse_actuated(spec, layout);
    std::ostringstream out;
    {
      py::gil_scoped_release release;
      CertifiedEvaluation r = certified_evaluation(lm, state, *p, act, impact, lm.file);
      if (prove) r.proof = rbd::prove(r.ev, lm.desc, state);
      const EvalDocument d = eval_document(lm, state, "state", opt.floating_base, r);
      d.write(out);
    }
    return out.str();
  }

  // A fixture of this model, as `rbdref fixture` writes it (the same text for the same arguments),
  // written atomically to `path` when given; every argument and the memory it needs checked first.
  // Its inputs (what an EngineOutput of it may not be written over): path and the model's files.
  PyFixture fixture(const py::object& samples_arg, const py::object& seed_arg, const py::object& precision_arg,
                           const py::object& prove_arg, const py::object& threads_arg, const py::object& shard_arg,
                           const py::object& max_memory_arg, const py::object& path_obj) {
    const std::string fn = "Model.fixture";
    const int samples = static_cast<int>(int_arg(samples_arg, fn, "samples", 1, 100000));
    const std::uint64_t seed = int_arg(seed_arg, fn, "seed", 0, UINT64_MAX);
    const std::string precision = string_arg(precision_arg, fn, "precision");
    const std::optional<Precision> p = Precision::parse(precision);
    if (!p) throw InputError(fn, "precision", "expected double, longdouble, float128, bin50, bin100 or mpfr:<digits>, got " + shown(precision));
    const bool prove = bool_arg(prove_arg, fn, "prove");
    const int threads_given = static_cast<int>(int_arg(threads_arg, fn, "threads", 0, 256));
    const int threads = threads_given > 0 ? threads_given : default_threads();
    const std::string shard_text = shard_arg.is_none() ? "" : string_arg(shard_arg, fn, "shard", "\"K/N\"");
    const ShardSpec sh = shard_text.empty() ? ShardSpec{} : parse_shard(shard_text, "shard");
    if (sh.count > samples)
      throw InputError(fn, "shard", "expected N <= samples (" + std::to_string(samples) + "): each of the N shards holds at least one sample");
    const std::string max_memory = memory_arg(max_memory_arg, fn);
    const std::string path = path_arg(path_obj, fn, "path", true);
    if (!path.empty()) {
      check_distinct_paths(inputs, {{fn + " path", path}});
      check_output_path(path);
    }
    // The samples computed at once, as write_fixture runs them (cli/fixture_command.cpp).
    const auto [first, end] = shard_range(samples, sh);
    const bool large = model_layout(lm.desc).nv > 512;
    const int at_once = !thread_safe_precision(*p) || large ? 1 : std::max(1, std::min(threads, end - first));
    memory_guard(lm, *p, max_memory, at_once, prove);
    std::ostringstream out;
    {
      py::gil_scoped_release release;
      write_fixture(lm, samples, seed, *p, threads, out, 512, prove, sh);
    }
    const std::string text = out.str();
    if (!path.empty()) {
      const bool gz = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
      write_file_atomic(path, [&](std::ostream& o) { o << text; }, gz);
    }
    const std::string name = path.empty() ? lm.desc.name + " fixture" : path;
    PyFixture f{std::make_shared<Fixture>(read_fixture(parse_json_text(text, name), name)), name, inputs};
    if (!path.empty()) f.inputs.insert(f.inputs.begin(), path);
    return f;
  }
};

// An engine output given as an EngineOutput object (its file: where it was last written) or as a
// path, read into `storage`; `file` receives the name reports use, `inputs` the files it stands for.
// An object is read back as its file would be (io/engine_output.hpp), so that the module scores
// exactly what the command line would accept: samples present, every field valid.
const EngineOutput* engine_output_from(const py::handle& output, EngineOutput& storage, std::string& file, std::vector<std::string>& inputs,
                                       const std::string& fn) {
  if (py::isinstance<PyEngineOutput>(output)) {
    const PyEngineOutput& o = output.cast<const PyEngineOutput&>();
    file = o.written.empty() ? "(EngineOutput " + o.e.engine + ", not written)" : o.written;
    if (!o.written.empty()) inputs.push_back(o.written);
    if (o.e.samples.empty())
      throw InputError(fn, "output", "the EngineOutput has no samples: add the engine's values (add) or its failures (fail) first");
    read_engine_output(parse_json_text(engine_output_to_json(o.e).dump(), file), file);
    return &o.e;
  }
  if (!py::isinstance<py::str>(output) && !py::isinstance<py::bytes>(output) && !py::hasattr(output, "__fspath__"))
    throw InputError(fn, "output", "expected an EngineOutput or the path of an engine output file, got " + type_name(output));
  file = path_arg(output, fn, "output");
  inputs.push_back(file);
  py::gil_scoped_release release;
  storage = read_engine_output_file(file);
  return &storage;
}

// compare(fixture, output, tolerances) → (report JSON, summary, JUnit XML, passed, input files)
py::tuple compare_py(const py::object& fixture, const py::object& output, const py::object& tol_arg) {
  const std::string fn = "compare";
  const PyFixture fx = fixture_from(fixture, fn);
  std::vector<std::string> inputs = fx.inputs;
  EngineOutput file_output;
  std::string engine_file;
  const EngineOutput* e = engine_output_from(output, file_output, engine_file, inputs, fn);
  Tolerances tol = Tolerances::defaults(e->epsilon(engine_file));
  if (!tol_arg.is_none()) {
    if (!py::isinstance<py::dict>(tol_arg)) throw InputError(fn, "tol", "expected a dict {quantity: relative tolerance}, got " + type_name(tol_arg));
    for (const auto& [k, v] : tol_arg.cast<py::dict>()) {
      const std::string q = string_arg(k, fn, "tol", "a quantity name (str) as a key");
      const QuantityInfo* qi = find_quantity(q);
      if (!qi || !qi->in_engine_output())
        throw InputError(fn, "tol[" + shown(q) + "]", "expected a quantity of an engine output (" + join(engine_quantities()) + ")");
      const double rel = py::isinstance(v, py::module_::import("numbers").attr("Real")) && !PyBool_Check(v.ptr())
                             ? py::float_(py::reinterpret_borrow<py::object>(v)).cast<double>()
                             : 0.0;
      if (!(rel > 0) || !std::isfinite(rel))
        throw InputError(fn, "tol[" + shown(q) + "]", "expected a positive relative tolerance such as 1e-9, got " +
                                                          py::repr(v).cast<std::string>());
      tol.overrides[q] = rel;
    }
  }
  Report r;
  {
    py::gil_scoped_release release;
    r = compare(*fx.f, fx.path, *e, engine_file, tol);
  }
  return py::make_tuple(report_to_json(r).dump(), report_summary(r), reports_to_junit({r}), r.passed, bytes_list(inputs));
}

py::tuple check_py(const py::object& output, const py::object& fixture) {
  const std::string fn = "check";
  std::vector<std::string> inputs;
  EngineOutput file_output;
  std::string engine_file;
  const EngineOutput* e = engine_output_from(output, file_output, engine_file, inputs, fn);
  std::optional<PyFixture> fx;
  if (!fixture.is_none()) {
    fx = fixture_from(fixture, fn);
    inputs.insert(inputs.end(), fx->inputs.begin(), fx->inputs.end());
  }
  Report r;
  {
    py::gil_scoped_release release;
    r = check_report(*e, engine_file, fx ? fx->f.get() : nullptr);
  }
  return py::make_tuple(report_to_json(r).dump(), checks_summary(r.checks), reports_to_junit({r}), r.passed, bytes_list(inputs));
}

}  // namespace

}  // namespace rbd::python

using namespace rbd;          // NOLINT: the module's definitions read as the library's
using namespace rbd::python;  // NOLINT

namespace rbd::python {

namespace {

// Exceptions: the package defines the Python classes and registers them here (_set_exceptions).
void bind_errors(py::module_& m) {
  static py::object input_error, model_error, engine_error;
  m.def("_set_exceptions", [](py::object in, py::object model, py::object engine) {
    input_error = std::move(in);
    model_error = std::move(model);
    engine_error = std::move(engine);
  });
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      if (!input_error) throw;
      py::object ex = input_error(e.what(), e.file(), e.field());
      PyErr_SetObject(input_error.ptr(), ex.ptr());
    } catch (const ModelError& e) {
      if (!model_error) throw;
      PyErr_SetString(model_error.ptr(), e.what());
    } catch (const EngineError& e) {
      if (!engine_error) throw;
      PyErr_SetString(engine_error.ptr(), e.what());
    }
  });
}

// Fixture and its Sample.
void bind_fixture(py::module_& m) {
  py::class_<PySample>(m, "Sample")
      .def_property_readonly("id", [](const PySample& s) { return s.s->id; })
      .def_property_readonly("kind", [](const PySample& s) { return s.s->kind; })
      .def_property_readonly("q", [](const PySample& s) { return array_of(s.s->q); })
      .def_property_readonly("qd", [](const PySample& s) { return array_of(s.s->qd); })
      .def_property_readonly("qdd", [](const PySample& s) { return array_of(s.s->qdd); })
      .def_property_readonly("tau", [](const PySample& s) { return array_of(s.s->tau); })
      .def_property_readonly("condition_number", [](const PySample& s) { return s.s->condition_number; })
      .def_property_readonly("quantities", [](const PySample& s) { return sample_quantities(*s.s); })
      .def("_reference", [](const PySample& s, const py::object& name_arg) -> py::object {
        const std::string name = string_arg(name_arg, "Sample.reference", "name", "a quantity name (str)");
        const Quantity* q = reference_quantity(*s.s, name);
        return q ? py::object(quantity_dict(*q)) : py::object(py::none());
      });

  py::class_<PyFixture>(m, "Fixture")
      .def(py::init([](const py::object& path) {
             if (py::isinstance<PyFixture>(path)) throw InputError("Fixture", "path", "expected the path of a fixture file, got a Fixture");
             return fixture_from(path, "Fixture", "path");
           }),
           py::arg("path"))
      .def_property_readonly("_inputs", [](const PyFixture& f) { return bytes_list(f.inputs); })
      .def_property_readonly("path", [](const PyFixture& f) { return f.path; })
      .def_property_readonly("dofs", [](const PyFixture& f) { return f.f->dofs; })
      .def_property_readonly("q_coordinates", [](const PyFixture& f) { return f.f->q_coordinates; })
      .def_property_readonly("nv", [](const PyFixture& f) { return f.f->dofs.size(); })
      .def_property_readonly("nq", [](const PyFixture& f) { return f.f->q_coordinates.size(); })
      .def_property_readonly("model_name", [](const PyFixture& f) { return f.f->model.name; })
      .def_property_readonly("model_sha256", [](const PyFixture& f) { return f.f->model_sha256; })
      .def_property_readonly("model_json", [](const PyFixture& f) { return model_to_json(f.f->model).dump(); })
      .def_property_readonly("source_file", [](const PyFixture& f) { return f.f->source_file; })
      .def_property_readonly("precision", [](const PyFixture& f) { return f.f->precision; })
      .def_property_readonly("check_precision", [](const PyFixture& f) { return f.f->check_precision; })
      .def_property_readonly("digits", [](const PyFixture& f) { return f.f->digits; })
      .def_property_readonly("seed", [](const PyFixture& f) { return f.f->seed; })
      .def_property_readonly("warnings", [](const PyFixture& f) { return f.f->model_warnings; })
      .def_property_readonly("notes", [](const PyFixture& f) { return f.f->notes; })
      .def_property_readonly("shard", [](const PyFixture& f) -> py::object {
        if (!f.f->shard_count) return py::none();
        return py::make_tuple(f.f->shard_index, f.f->shard_count);
      })
      .def_property_readonly("samples", [](const PyFixture& f) {
        std::vector<PySample> out;
        for (const Sample& s : f.f->samples) out.push_back(PySample{f.f, &s});
        return out;
      })
      .def("score", [](const PyFixture& f, const py::object& sample_arg, const py::object& quantity_arg, const py::object& values,
                       const py::object& scalar_arg) {
        const std::string fn = "Fixture.score";
        const std::string sample = string_arg(sample_arg, fn, "sample", "a sample id (str) or a Sample", true);
        const std::string quantity = string_arg(quantity_arg, fn, "quantity", "a quantity name (str)", true);
        const std::string scalar = string_arg(scalar_arg, fn, "scalar");
        std::vector<double> v;
        const QuantityInfo* qi = find_quantity(quantity);
        if (f.f->find(sample) && qi && qi->in_engine_output()) {  // else score_quantity says what is wrong
          const py::array a = quantity_array(values, fn, quantity);
          const size_t most = QuantityBounds(*f.f).most(*qi);
          if (a.ndim() > 2 || static_cast<size_t>(a.size()) > most)
            throw InputError(fn, quantity, "expected at most " + std::to_string(most) + " numbers (" + quantity + " of this model), got shape " +
                                               shape_text(a));
          std::string non_finite;
          for (const Num& n : quantity_entries(a, fn, quantity, non_finite)) v.push_back(n.is_double ? n.value : std::strtod(n.text.c_str(), nullptr));
          if (!non_finite.empty()) throw InputError(fn, quantity, "expected finite numbers, got " + non_finite.substr(0, non_finite.find(" (not")));
        }
        const SampleScore sc = score_quantity(*f.f, sample, quantity, v, scalar, fn);
        py::dict d;
        d["sample"] = sc.sample;
        d["quantity"] = sc.quantity;
        d["digits"] = sc.digits;
        d["cap"] = sc.cap;
        d["proven"] = sc.proven;
        d["abs_err"] = sc.abs_err;
        d["rel_err"] = sc.rel_err;
        d["scale"] = sc.scale;
        d["tolerance"] = sc.tolerance;
        d["passed"] = sc.passed;
        d["worst_entry"] = sc.worst_col || is_matrix_quantity(quantity) ? py::object(py::make_tuple(sc.worst_row, sc.worst_col))
                                                                        : py::object(py::make_tuple(sc.worst_row));
        d["engine"] = sc.engine;
        d["reference"] = sc.reference;
        return d;
      }, py::arg("sample"), py::arg("quantity"), py::arg("values"), py::arg("scalar") = "double");
}

// EngineOutput, built from numpy arrays or read from a file.
void bind_engine_output(py::module_& m) {
  py::class_<PyEngineOutput>(m, "EngineOutput")
      .def(py::init([](const py::object& fixture, const py::object& engine, const py::object& version, const py::object& scalar,
                       const py::object& import_path, const py::object& conventions) {
             const std::string fn = "EngineOutput";
             PyEngineOutput o;
             const PyFixture fx = fixture_from(fixture, fn);
             o.f = fx.f;
             o.fixture_path = fx.path;
             o.inputs = fx.inputs;
             o.e.engine = string_arg(engine, fn, "engine", "the engine's name (a non-empty string)", true);
             o.e.engine_version = string_arg(version, fn, "version");
             o.e.scalar = string_arg(scalar, fn, "scalar", "double, float, longdouble, float128 or mpfr:<digits>");
             o.e.epsilon(fn);  // an unknown scalar is refused here, not when compared
             o.e.import_path = string_arg(import_path, fn, "import_path");
             o.e.model_name = fx.f->model.name;
             o.e.model_sha256 = fx.f->model_sha256;
             o.e.fixture_file = fx.path;
             o.e.dofs = fx.f->dofs;
             if (!conventions.is_none()) {
               if (!py::isinstance<py::dict>(conventions))
                 throw InputError(fn, "conventions", "expected a dict (the engine's conventions), got " + type_name(conventions));
               o.e.conventions = json_arg(conventions, fn, "conventions");
               for (const char* key : {"soft_loop_constraints", "contact_model"})
                 if (o.e.conventions.contains(key) && (!o.e.conventions[key].is_string() || o.e.conventions[key].get<std::string>().empty()))
                   throw InputError(fn, std::string("conventions.") + key, "expected a non-empty string saying which model the engine solves");
             }
             return o;
           }),
           py::arg("fixture"), py::arg("engine"), py::arg("version") = "", py::arg("scalar") = "double",
           py::arg("import_path") = "", py::arg("conventions") = py::none())
      .def("add", &PyEngineOutput::add, py::arg("sample"))
      .def("fail", &PyEngineOutput::add_failure, py::arg("sample"), py::arg("why"))
      .def("to_json", [](const PyEngineOutput& o) { return engine_output_to_json(o.e).dump(1) + "\n"; })
      .def("write", [](PyEngineOutput& o, const py::object& path_arg_) {
        const std::string path = path_arg(path_arg_, "EngineOutput.write", "path");
        // Never over a file it was made from (the fixture, an MJCF source), as the command line
        // never writes over an input.
        check_distinct_paths(o.inputs, {{"EngineOutput.write path", path}});
        const std::string text = engine_output_to_json(o.e).dump(1) + "\n";
        read_engine_output(parse_json_text(text, path), path);  // what compare will read back
        write_file_atomic(path, text);
        o.written = path;
      }, py::arg("path"))
      .def_property_readonly("engine", [](const PyEngineOutput& o) { return o.e.engine; })
      .def_property_readonly("sample_ids", [](const PyEngineOutput& o) {
        std::vector<std::string> ids;
        for (const EngineSample& s : o.e.samples) ids.push_back(s.id);
        return ids;
      });
}

// Model: a model file loaded, evaluated and proven.
void bind_model(py::module_& m) {
  py::class_<PyModel>(m, "Model")
      .def(py::init([](const py::object& path_obj, const py::object& floating_base, const py::object& inertia_arg, const py::object& loops,
                       const py::object& contacts) {
             const std::string fn = "Model";
             PyModel pm;
             const std::string path = path_arg(path_obj, fn, "path");
             pm.opt.floating_base = bool_arg(floating_base, fn, "floating_base");
             const std::string inertia = string_arg(inertia_arg, fn, "inertia", "\"accept\" or \"strict\"");
             if (!inertia_policy_from_name(inertia, pm.opt.inertia))
               throw InputError(fn, "inertia", "expected \"accept\" or \"strict\", got " + shown(inertia));
             pm.opt.loops_file = path_arg(loops, fn, "loops", true);
             pm.opt.contacts_file = path_arg(contacts, fn, "contacts", true);
             for (const std::string& f : {path, pm.opt.loops_file, pm.opt.contacts_file})
               if (!f.empty()) pm.inputs.push_back(f);
             py::gil_scoped_release release;
             pm.lm = load_model(path, pm.opt);
             return pm;
           }),
           py::arg("path"), py::arg("floating_base") = false, py::arg("inertia") = "accept", py::arg("loops") = py::none(),
           py::arg("contacts") = py::none())
      .def_property_readonly("_inputs", [](const PyModel& m) { return bytes_list(m.inputs); })
      .def_property_readonly("name", [](const PyModel& m) { return m.lm.desc.name; })
      .def_property_readonly("kind", [](const PyModel& m) { return m.lm.kind; })
      .def_property_readonly("file", [](const PyModel& m) { return m.lm.file; })
      .def_property_readonly("sha256", [](const PyModel& m) { return m.lm.sha256; })
      .def_property_readonly("warnings", [](const PyModel& m) { return m.lm.warnings(); })
      .def_property_readonly("dofs", [](const PyModel& m) { return dof_names(model_layout(m.lm.desc)); })
      .def_property_readonly("q_coordinates", [](const PyModel& m) { return q_names(model_layout(m.lm.desc)); })
      .def_property_readonly("nv", [](const PyModel& m) { return model_layout(m.lm.desc).nv; })
      .def_property_readonly("nq", [](const PyModel& m) { return model_layout(m.lm.desc).nq; })
      .def_property_readonly("loop_joints", [](const PyModel& m) {
        std::vector<std::string> n;
        for (const LoopJointDesc& l : m.lm.desc.loop_joints) n.push_back(l.name);
        return n;
      })
      .def_property_readonly("contacts", [](const PyModel& m) {
        std::vector<std::string> n;
        for (const ContactDesc& c : m.lm.desc.contacts) n.push_back(c.name);
        return n;
      })
      .def_property_readonly("canonical_json", [](const PyModel& m) { return model_to_json(m.lm.desc).dump(); })
      .def("_eval", &PyModel::eval)
      .def("_fixture", &PyModel::fixture);
}

// compare, check, the engines, shards, outputs and the quantity names.
void bind_functions(py::module_& m) {
  m.def("_compare", &compare_py);
  m.def("_check", &check_py);
  m.def("_engine_registry", [] { return engine_registry().dump(); });
  m.def("_run_engine", [](const py::object& name_arg, const py::object& fixture, const py::object& source_arg) {
    const std::string fn = "run_engine";
    const std::string name = string_arg(name_arg, fn, "name", "an engine's name (str)", true);
    const PyFixture fx = fixture_from(fixture, fn);
    const std::string source = path_arg(source_arg, fn, "source", true);
    std::unique_ptr<EngineAdapter> adapter;
    std::string names;
    for (auto& a : available_adapters()) {
      names += (names.empty() ? "" : ", ") + a->name();
      if (a->name() == name) adapter = std::move(a);
    }
    if (!adapter) throw InputError("run_engine", "engine", "no adapter '" + name + "' in this build (available: " + names + ")");
    PyEngineOutput o;
    o.f = fx.f;
    o.fixture_path = fx.path;
    o.inputs = fx.inputs;
    if (adapter->imports_source()) o.inputs.push_back(source.empty() ? fx.f->source_file : source);
    const std::string why = adapter->unsupported(*fx.f);
    if (!why.empty()) throw EngineError(name + " does not run this model: " + why);
    py::gil_scoped_release release;
    o.e = adapter->imports_source() ? adapter->run_source(*fx.f, fx.path, source.empty() ? fx.f->source_file : source)
                                    : adapter->run(*fx.f, fx.path);
    return o;
  });
  // The shards of a campaign joined and written to `out` (never over a shard), its path returned.
  m.def("_merge_fixture_shards", [](const py::object& shards, const py::object& out_arg) {
    const std::string fn = "merge";
    if (py::isinstance<py::str>(shards) || py::isinstance<py::bytes>(shards) || !py::hasattr(shards, "__iter__"))
      throw InputError(fn, "shards", "expected a list of shard files, got " + type_name(shards));
    std::vector<std::string> paths;
    for (const py::handle& p : shards) paths.push_back(path_arg(p, fn, "shards[" + std::to_string(paths.size()) + "]"));
    const std::string out = path_arg(out_arg, fn, "out");
    check_distinct_paths(paths, {{fn + " out", out}});
    check_output_path(out);
    std::vector<std::pair<std::string, std::string>> files;
    for (const std::string& p : paths) files.emplace_back(p, read_text_file(p));
    const std::string text = merge_fixture_shards(files);
    const bool gz = out.size() > 3 && out.compare(out.size() - 3, 3, ".gz") == 0;
    write_file_atomic(out, [&](std::ostream& o) { o << text; }, gz);
    return out_arg;
  });
  // A report's text written to `path`, never over one of `inputs` (the files it was made from).
  m.def("_write_text", [](const py::object& path_obj, const std::string& text, const std::vector<std::string>& inputs, const std::string& fn) {
    const std::string path = path_arg(path_obj, fn, "path");
    check_distinct_paths(inputs, {{fn + " path", path}});
    const bool gz = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
    write_file_atomic(path, [&](std::ostream& out) { out << text; }, gz);
  });
  m.def("_quantities", [] { return quantity_names(); });
}

}  // namespace

}  // namespace rbd::python

PYBIND11_MODULE(_core, m) {
  m.doc() = "rbdref's library (the package rbdref wraps it; docs/python.md)";
  m.attr("__version__") = "0.1.0";

  rbd::python::bind_errors(m);
  rbd::python::bind_fixture(m);
  rbd::python::bind_engine_output(m);
  rbd::python::bind_model(m);
  rbd::python::bind_functions(m);
}
