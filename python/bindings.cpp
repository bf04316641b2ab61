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
#include "engines/adapter.hpp"
#include "engines/values.hpp"
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

// numpy (or any sequence) → the entries of an engine quantity: float64 numbers, or decimal strings
// when the array holds text. `shape` receives the array's shape.
std::vector<Num> nums_of(const py::handle& obj, const std::string& source, const std::string& field, std::vector<py::ssize_t>& shape) {
  py::module_ np = py::module_::import("numpy");
  py::array a = np.attr("asarray")(obj);
  shape.assign(a.shape(), a.shape() + a.ndim());
  std::vector<Num> out;
  const char kind = a.dtype().kind();
  if (kind == 'U' || kind == 'S' || kind == 'O') {
    py::list flat = a.attr("ravel")().attr("tolist")();
    for (size_t k = 0; k < flat.size(); ++k) {
      py::handle x = flat[k];
      if (py::isinstance<py::str>(x)) out.push_back(json_num(json(x.cast<std::string>()), source, field + "[" + std::to_string(k) + "]"));
      else out.push_back(json_num(json(py::reinterpret_borrow<py::object>(x).cast<double>()), source, field + "[" + std::to_string(k) + "]"));
    }
    return out;
  }
  if (kind != 'f' && kind != 'i' && kind != 'u' && kind != 'b')
    throw InputError(source, field, "expected numbers (a float64 array) or decimal strings, got an array of dtype " +
                                        py::str(a.dtype()).cast<std::string>());
  py::array_t<double, py::array::c_style | py::array::forcecast> d(a);
  const double* p = d.data();
  for (py::ssize_t k = 0; k < d.size(); ++k) out.push_back(Num::exact(p[k]));
  return out;
}

struct PyEngineOutput {
  std::shared_ptr<Fixture> f;
  std::string fixture_path;
  EngineOutput e;
  std::string written;  // the file it was last written to (the report's engine file)

  EngineSample& sample(const std::string& id) {
    for (EngineSample& s : e.samples)
      if (s.id == id) return s;
    const Sample* fs = f->find(id);
    if (!fs)
      throw InputError("EngineOutput", "add", "'" + id + "' is not a sample of the fixture " + fixture_path + " (it has " +
                                                  f->samples.front().id + " .. " + f->samples.back().id + ")");
    e.samples.push_back(engine_sample_of(*fs));  // the fixture's inputs, as the engine ran them
    return e.samples.back();
  }

  // Adds (or replaces) quantities of sample `id`. Shapes are checked here: H and L nv x nv, the
  // nv-vectors nv; the lengths the model gives (lambda, contact_lambda, impact_lambda) when
  // compared. A non-finite entry is the engine failing on the sample: the quantity is left out and
  // the sample's error names the entry (a sample failure in every report).
  void add(const std::string& id, const py::kwargs& values) {
    EngineSample& s = sample(id);
    const int nv = static_cast<int>(f->dofs.size());
    for (const auto& [k, v] : values) {
      const std::string name = k.cast<std::string>();
      if (name == "raw") {
        s.raw = json::parse(py::module_::import("json").attr("dumps")(v).cast<std::string>());
        continue;
      }
      const QuantityInfo* qi = find_quantity(name);
      if (!qi || !(qi->documents & kEngineOutput))
        throw InputError("EngineOutput.add", name, "not a quantity of an engine output (expected one of " + join(quantity_names()) + ")");
      std::vector<py::ssize_t> shape;
      std::vector<Num> nums = nums_of(v, "EngineOutput.add", "sample " + id + ": " + name, shape);
      NumMatrix m;
      if (qi->shape == QuantityShape::kMatrixNv) {
        if (shape.size() != 2 || shape[0] != nv || shape[1] != nv)
          throw InputError("EngineOutput.add", name, "expected an nv x nv = " + std::to_string(nv) + " x " + std::to_string(nv) +
                                                         " array, got shape " + py::str(py::tuple(py::cast(shape))).cast<std::string>());
        m.rows = m.cols = nv;
      } else {
        if (shape.size() != 1)
          throw InputError("EngineOutput.add", name, "expected a 1-D array, got shape " + py::str(py::tuple(py::cast(shape))).cast<std::string>());
        if (qi->shape == QuantityShape::kVectorNv && shape[0] != nv)
          throw InputError("EngineOutput.add", name, "expected nv = " + std::to_string(nv) + " numbers, got " + std::to_string(shape[0]));
        m.rows = static_cast<int>(shape[0]);
      }
      m.v = std::move(nums);
      s.values[name] = std::move(m);
    }
  }
  void add_failure(const std::string& id, const std::string& why) {
    EngineSample& s = sample(id);
    s.error += (s.error.empty() ? "" : "; ") + why;
  }
};

// Decimal-string lists from Python: None → empty, numbers → exact doubles (as JSON numbers),
// strings → decimal text.
json state_vector(const py::handle& v) {
  if (v.is_none()) return json();
  py::module_ np = py::module_::import("numpy");
  py::array a = np.attr("asarray")(v);
  const char kind = a.dtype().kind();
  json out = json::array();
  py::list flat = a.attr("ravel")().attr("tolist")();
  for (py::handle x : flat) {
    if (kind == 'U' || kind == 'S' || py::isinstance<py::str>(x)) out.push_back(x.cast<std::string>());
    else {
      const double d = py::reinterpret_borrow<py::object>(x).cast<double>();
      if (!std::isfinite(d)) throw InputError("state", "", "expected finite numbers, got " + std::to_string(d));
      out.push_back(d);
    }
  }
  return out;
}

struct PyModel {
  LoadedModel lm;
  LoadOptions opt;

  // The eval document (format rbdref.eval) of one state, as `rbdref eval` writes it.
  std::string eval(const py::object& q, const py::object& qd, const py::object& qdd, const py::object& tau, const std::string& precision,
                   const std::vector<std::string>& actuated, bool impact, bool prove, const py::object& tau_loops,
                   const py::object& contact_state) {
    const std::optional<Precision> p = Precision::parse(precision);
    if (!p) throw InputError("precision", "", "expected double, longdouble, float128, bin50, bin100 or mpfr:<digits>, got '" + precision + "'");
    const Model<double> layout = model_layout(lm.desc);
    json doc = json::object();
    doc["q"] = state_vector(q);
    for (const auto& [k, v] : {std::pair<const char*, const py::object*>{"qd", &qd}, {"qdd", &qdd}, {"tau", &tau}})
      if (!v->is_none()) doc[k] = state_vector(*v);
    py::module_ js = py::module_::import("json");
    if (!tau_loops.is_none()) doc["tau_loops"] = json::parse(js.attr("dumps")(tau_loops).cast<std::string>());
    if (!contact_state.is_none()) doc["contact_state"] = json::parse(js.attr("dumps")(contact_state).cast<std::string>());
    const StateDesc state = read_state(doc, "state", layout);
    if (!prove) check_angles_reducible(layout, state, *p, "state");
    if (impact && layout.contacts.empty()) throw InputError("impact", "", "needs a model with contacts");
    std::string spec;
    for (const std::string& a : actuated) spec += (spec.empty() ? "" : ",") + a;
    const std::vector<int> act = parse_actuated(spec, layout);
    std::ostringstream out;
    {
      py::gil_scoped_release release;
      CertifiedEvaluation r = evaluate_certified(lm, state, *p, act, impact, lm.file);
      if (prove) r.proof = rbd::prove(r.ev, lm.desc, state);
      const EvalDocument d = eval_document(lm, state, "state", opt.floating_base, r);
      d.write(out);
    }
    return out.str();
  }

  // A fixture of this model, as `rbdref fixture` writes it (the same text for the same arguments).
  std::string fixture_text(int samples, std::uint64_t seed, const std::string& precision, bool prove, int threads, const std::string& shard) {
    const std::optional<Precision> p = Precision::parse(precision);
    if (!p) throw InputError("precision", "", "expected double, longdouble, float128, bin50, bin100 or mpfr:<digits>, got '" + precision + "'");
    if (samples < 1 || samples > 100000) throw InputError("samples", "", "expected an integer from 1 to 100000");
    const ShardSpec sh = shard.empty() ? ShardSpec{} : parse_shard(shard, "shard");
    std::ostringstream out;
    py::gil_scoped_release release;
    write_fixture(lm, samples, seed, *p, threads > 0 ? threads : default_threads(), out, 512, prove, sh);
    return out.str();
  }
};

PyFixture fixture_from(const py::object& obj) {
  if (py::isinstance<PyFixture>(obj)) return obj.cast<PyFixture>();
  const std::string path = py::str(obj).cast<std::string>();
  return PyFixture{std::make_shared<Fixture>(read_fixture_file(path)), path};
}

// An engine output given as an EngineOutput object (its file: where it was last written) or as a
// path, read into `storage`; `file` receives the name reports use.
const EngineOutput* engine_output_from(const py::object& output, EngineOutput& storage, std::string& file) {
  if (py::isinstance<PyEngineOutput>(output)) {
    const PyEngineOutput& o = output.cast<const PyEngineOutput&>();
    file = o.written.empty() ? "(EngineOutput " + o.e.engine + ", not written)" : o.written;
    return &o.e;
  }
  file = py::str(output).cast<std::string>();
  storage = read_engine_output_file(file);
  return &storage;
}

// compare(fixture, output, tolerances) → (report JSON, summary, JUnit XML, passed)
py::tuple compare_py(const py::object& fixture, const py::object& output, const std::map<std::string, double>& tol_overrides) {
  const PyFixture fx = fixture_from(fixture);
  EngineOutput file_output;
  std::string engine_file;
  const EngineOutput* e = engine_output_from(output, file_output, engine_file);
  Tolerances tol = Tolerances::defaults(e->epsilon(engine_file));
  for (const auto& [q, rel] : tol_overrides) {
    std::ostringstream spec;
    spec.precision(17);
    spec << q << "=" << rel;
    add_tolerance_override(tol, spec.str());
  }
  Report r;
  {
    py::gil_scoped_release release;
    r = compare(*fx.f, fx.path, *e, engine_file, tol);
  }
  return py::make_tuple(report_to_json(r).dump(), report_summary(r), reports_to_junit({r}), r.passed);
}

py::tuple check_py(const py::object& output, const py::object& fixture) {
  EngineOutput file_output;
  std::string engine_file;
  const EngineOutput* e = engine_output_from(output, file_output, engine_file);
  std::optional<PyFixture> fx;
  if (!fixture.is_none()) fx = fixture_from(fixture);
  Report r;
  {
    py::gil_scoped_release release;
    r = check_report(*e, engine_file, fx ? fx->f.get() : nullptr);
  }
  return py::make_tuple(report_to_json(r).dump(), checks_summary(r.checks), reports_to_junit({r}), r.passed);
}

}  // namespace

}  // namespace rbd::python

using namespace rbd;          // NOLINT: the module's definitions read as the library's
using namespace rbd::python;  // NOLINT

PYBIND11_MODULE(_core, m) {
  m.doc() = "rbdref's library (the package rbdref wraps it; docs/python.md)";
  m.attr("__version__") = "0.1.0";

  // Exceptions: the package defines the Python classes and registers them here (set_exceptions).
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

  py::class_<PySample>(m, "Sample")
      .def_property_readonly("id", [](const PySample& s) { return s.s->id; })
      .def_property_readonly("kind", [](const PySample& s) { return s.s->kind; })
      .def_property_readonly("q", [](const PySample& s) { return array_of(s.s->q); })
      .def_property_readonly("qd", [](const PySample& s) { return array_of(s.s->qd); })
      .def_property_readonly("qdd", [](const PySample& s) { return array_of(s.s->qdd); })
      .def_property_readonly("tau", [](const PySample& s) { return array_of(s.s->tau); })
      .def_property_readonly("condition_number", [](const PySample& s) { return s.s->condition_number; })
      .def_property_readonly("quantities", [](const PySample& s) { return sample_quantities(*s.s); })
      .def("_reference", [](const PySample& s, const std::string& name) -> py::object {
        const Quantity* q = reference_quantity(*s.s, name);
        return q ? py::object(quantity_dict(*q)) : py::object(py::none());
      });

  py::class_<PyFixture>(m, "Fixture")
      .def(py::init([](const std::string& path) {
             py::gil_scoped_release release;
             return PyFixture{std::make_shared<Fixture>(read_fixture_file(path)), path};
           }),
           py::arg("path"))
      .def_static("_from_text", [](const std::string& text, const std::string& name) {
        return PyFixture{std::make_shared<Fixture>(read_fixture(parse_json_text(text, name), name)), name};
      })
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
      .def("score", [](const PyFixture& f, const std::string& sample, const std::string& quantity, const py::object& values,
                       const std::string& scalar) {
        std::vector<py::ssize_t> shape;
        std::vector<double> v;
        for (const Num& n : nums_of(values, "Fixture.score", quantity, shape)) v.push_back(n.value);
        const SampleScore sc = score_quantity(*f.f, sample, quantity, v, scalar, "Fixture.score");
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

  py::class_<PyEngineOutput>(m, "EngineOutput")
      .def(py::init([](const py::object& fixture, const std::string& engine, const std::string& version, const std::string& scalar,
                       const std::string& import_path, const py::object& conventions) {
             PyEngineOutput o;
             const PyFixture fx = fixture_from(fixture);
             o.f = fx.f;
             o.fixture_path = fx.path;
             if (engine.empty()) throw InputError("EngineOutput", "engine", "expected the engine's name");
             o.e.engine = engine;
             o.e.engine_version = version;
             o.e.scalar = scalar;
             o.e.epsilon("EngineOutput");  // an unknown scalar is refused here, not when compared
             o.e.import_path = import_path;
             o.e.model_name = fx.f->model.name;
             o.e.model_sha256 = fx.f->model_sha256;
             o.e.fixture_file = fx.path;
             o.e.dofs = fx.f->dofs;
             if (!conventions.is_none())
               o.e.conventions = json::parse(py::module_::import("json").attr("dumps")(conventions).cast<std::string>());
             return o;
           }),
           py::arg("fixture"), py::arg("engine"), py::arg("version") = "", py::arg("scalar") = "double",
           py::arg("import_path") = "", py::arg("conventions") = py::none())
      .def("add", &PyEngineOutput::add, py::arg("sample"))
      .def("fail", &PyEngineOutput::add_failure, py::arg("sample"), py::arg("why"))
      .def("_drop", [](PyEngineOutput& o, const std::string& id, const std::string& name) { o.sample(id).values.erase(name); })
      .def("to_json", [](const PyEngineOutput& o) { return engine_output_to_json(o.e).dump(1) + "\n"; })
      .def("write", [](PyEngineOutput& o, const std::string& path) {
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

  py::class_<PyModel>(m, "Model")
      .def(py::init([](const std::string& path, bool floating_base, const std::string& inertia, const std::string& loops,
                       const std::string& contacts) {
             PyModel pm;
             pm.opt.floating_base = floating_base;
             if (!inertia_policy_from_name(inertia, pm.opt.inertia))
               throw InputError("Model", "inertia", "expected \"accept\" or \"strict\", got \"" + inertia + "\"");
             pm.opt.loops_file = loops;
             pm.opt.contacts_file = contacts;
             py::gil_scoped_release release;
             pm.lm = load_model(path, pm.opt);
             return pm;
           }),
           py::arg("path"), py::arg("floating_base") = false, py::arg("inertia") = "accept", py::arg("loops") = "",
           py::arg("contacts") = "")
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
      .def("_fixture_text", &PyModel::fixture_text);

  m.def("_compare", &compare_py);
  m.def("_check", &check_py);
  m.def("_engine_registry", [] { return engine_registry().dump(); });
  m.def("_run_engine", [](const std::string& name, const py::object& fixture, const std::string& source) {
    const PyFixture fx = fixture_from(fixture);
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
    const std::string why = adapter->unsupported(*fx.f);
    if (!why.empty()) throw EngineError(name + " does not run this model: " + why);
    py::gil_scoped_release release;
    o.e = adapter->imports_source() ? adapter->run_source(*fx.f, fx.path, source.empty() ? fx.f->source_file : source)
                                    : adapter->run(*fx.f, fx.path);
    return o;
  });
  m.def("_merge_fixture_shards", [](const std::vector<std::string>& paths) {
    std::vector<std::pair<std::string, std::string>> files;
    for (const std::string& p : paths) files.emplace_back(p, read_text_file(p));
    return merge_fixture_shards(files);
  });
  m.def("_write_text", [](const std::string& path, const std::string& text) {
    const bool gz = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
    write_file_atomic(path, [&](std::ostream& out) { out << text; }, gz);
  });
  m.def("_quantities", [] { return quantity_names(); });
}
