// What the adapters share: engine values converted at 50 digits, written into an engine output as
// decimal text with 25 significant digits (enough for any double and for the conversion's own
// rounding); a sample's inputs; digits of agreement for the adapters' own diagnoses in raw; the
// guards of a run() and of each of its samples; the model echo's place in the output; a model
// source's text as an import path reads it.
// (Their refusals: engines/support.hpp; their model echoes: engines/model_echo.hpp.)
#pragma once

#include "engines/adapter.hpp"
#include "io/engine_output.hpp"
#include "reference/numeric/scalar.hpp"
#include "reference/spatial/spatial.hpp"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

namespace rbd {

inline NumMatrix num_vec(const VecX<bin50>& x) {
  NumMatrix n;
  n.rows = static_cast<int>(x.size());
  for (Eigen::Index k = 0; k < x.size(); ++k) n.v.push_back(Num::decimal(to_decimal(x(k), 25)));
  return n;
}
inline NumMatrix num_mat(const MatX<bin50>& A) {
  NumMatrix n;
  n.rows = static_cast<int>(A.rows());
  n.cols = static_cast<int>(A.cols());
  for (Eigen::Index i = 0; i < A.rows(); ++i)
    for (Eigen::Index j = 0; j < A.cols(); ++j) n.v.push_back(Num::decimal(to_decimal(A(i, j), 25)));
  return n;
}

// An engine output's header for fixture f run by adapter a (double-precision engines): engine,
// version, scalar, the import path, the model's name and hash, the fixture file, the DoF names.
inline EngineOutput output_header(const EngineAdapter& a, const Fixture& f, const std::string& fixture_file, const std::string& import_path) {
  EngineOutput out;
  out.engine = a.name();
  out.engine_version = a.version();
  out.scalar = "double";
  out.import_path = import_path;
  out.model_name = f.model.name;
  out.model_sha256 = f.model_sha256;
  out.fixture_file = fixture_file;
  out.dofs = f.dofs;
  return out;
}

// A fixture sample's inputs: copied into an engine sample (exact doubles, as the engine saw them)
// and as bin50 vectors (q has nq entries, the others nv).
struct SampleInputs {
  VecX<bin50> q, qd, qdd, tau;
};
inline EngineSample engine_sample_of(const Sample& s) {
  EngineSample es;
  es.id = s.id;
  es.q = exact_nums(s.q);
  es.qd = exact_nums(s.qd);
  es.qdd = exact_nums(s.qdd);
  es.tau = exact_nums(s.tau);
  return es;
}
inline SampleInputs inputs_of(const Sample& s) {
  const auto vec = [](const std::vector<double>& v) {
    return VecX<bin50>(Eigen::Map<const VecX<double>>(v.data(), static_cast<Eigen::Index>(v.size())).cast<bin50>());
  };
  return {vec(s.q), vec(s.qd), vec(s.qdd), vec(s.tau)};
}

// Digits of agreement of x with r, relative to max(max|r|, floor) (17 for an exact match, capped
// there: these are doubles' digits). `floor` is the size of the terms r is made of, so that a
// value of 0 held by forces (a q̈ that vanishes) is not judged against its own rounding.
inline double agreement_digits(const VecX<bin50>& x, const VecX<bin50>& r, const bin50& floor = bin50(0)) {
  bin50 scale = floor, err = bin50(0);
  for (Eigen::Index k = 0; k < r.size(); ++k) {
    scale = std::max<bin50>(scale, bin50(abs(r(k))));
    err = std::max<bin50>(err, bin50(abs(bin50(x(k) - r(k)))));
  }
  if (scale == bin50(0)) scale = bin50(1);
  if (err == bin50(0)) return 17;
  return std::min(17.0, -std::log10(static_cast<double>(bin50(err / scale))));
}

// One sample of a run(): body(es) fills es; an EngineError there is the sample's error (its values
// dropped), and the other samples still run. es joins out either way.
template <class Body>
void add_sample(EngineOutput& out, EngineSample es, Body&& body) {
  try {
    body(es);
  } catch (const EngineError& e) {
    es.error = e.what();
    es.values.clear();
    es.model_values.clear();
  }
  out.samples.push_back(std::move(es));
}

// Every sample of f into out, one add_sample each: body(si, the sample's inputs as bin50 vectors, es).
template <class Body>
void add_samples(EngineOutput& out, const Fixture& f, Body&& body) {
  for (size_t si = 0; si < f.samples.size(); ++si)
    add_sample(out, engine_sample_of(f.samples[si]), [&](EngineSample& es) { body(si, inputs_of(f.samples[si]), es); });
}

// The engine's model echo (engines/model_echo.hpp) into out, the model's own oddities beside it
// (non-physical or rounding-level inertias, ignored mimic joints: the fixture's model_warnings), so
// that a reader of the report sees what the engine was given.
inline void put_model_echo(EngineOutput& out, const Fixture& f, const nlohmann::ordered_json& echo) {
  out.model_echo = json::parse(echo.dump());
  out.model_echo["model_warnings"] = f.model_warnings;
}

// An LCP result's status (reference/contact/lcp.hpp) as raw's "model" fields name it.
template <class LcpResultT>
const char* lcp_status_name(const LcpResultT& r) {
  return r.status == LcpResultT::Solved ? "solved" : r.status == LcpResultT::NoSolution ? "no_solution" : "failed";
}

// The body of every adapter's run(): an unsupported model is refused (EngineError with the reason),
// and any other exception of the engine or the conversion becomes an EngineError naming the engine.
template <class Body>
EngineOutput guarded_run(const EngineAdapter& a, const Fixture& f, const std::string& who, Body&& body) {
  const std::string why = a.unsupported(f);
  if (!why.empty()) throw EngineError("unsupported model: " + why);
  try {
    return body();
  } catch (const EngineError&) {
    throw;
  } catch (const std::exception& e) {
    throw EngineError(who + ": " + e.what());
  }
}

// The whole text of a file (a model's source, a file an engine wrote), read as bytes; empty when it
// cannot be read: the engine that reads it after says what it lacks.
inline std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A URDF's text without its <visual> and <collision> elements (and what they hold), for an import
// path whose engine must open every mesh file a URDF names: a user's URDF arrives without its
// package's meshes, which carry no dynamics (masses and inertias are the <inertial>s). removed
// counts the elements taken out.
inline std::string strip_urdf_geometry(const std::string& urdf, int* removed = nullptr) {
  std::string out;
  int n = 0;
  size_t i = 0;
  while (i < urdf.size()) {
    size_t best = std::string::npos;
    std::string tag;
    for (const char* t : {"visual", "collision"}) {
      const size_t p = urdf.find(std::string("<") + t, i);
      if (p != std::string::npos && (p + 1 + std::char_traits<char>::length(t) < urdf.size()) &&
          std::string(" \t\r\n/>").find(urdf[p + 1 + std::char_traits<char>::length(t)]) != std::string::npos && p < best)
        best = p, tag = t;
    }
    if (best == std::string::npos) {
      out += urdf.substr(i);
      break;
    }
    out += urdf.substr(i, best - i);
    const size_t gt = urdf.find('>', best);
    if (gt == std::string::npos) {
      out += urdf.substr(best);
      break;
    }
    size_t end;
    if (urdf[gt - 1] == '/') {
      end = gt + 1;
    } else {
      const size_t close = urdf.find("</" + tag + ">", gt);
      if (close == std::string::npos) {
        out += urdf.substr(best);
        break;
      }
      end = close + tag.size() + 3;
    }
    ++n;
    i = end;
  }
  if (removed) *removed = n;
  return out;
}

// The first body of m (a Model<double>) whose rotational inertia about its centre of mass breaks
// the triangle inequality of its principal moments (A + B >= C for every ordering: the condition
// for a real mass distribution) by more than rel_slop of the trace: "body 'NAME': principal
// moments A, B, C break A + B >= C"; empty when none does. rbdref computes with such a body
// (--inertia accept); MuJoCo without balanceinertia and Simbody refuse to load it, so for them
// the model is unsupported, with this as the reason, not a failed run.
template <class ModelT>
std::string inertia_triangle_violation(const ModelT& m, double rel_slop = 1e-12) {
  for (int i = 0; i < m.NB; ++i) {
    const double mass = m.I[i].mass();
    if (!(mass > 0)) continue;
    const Eigen::Vector3d c = m.I[i].com();
    Eigen::Matrix3d C;
    C << 0, -c(2), c(1), c(2), 0, -c(0), -c(1), c(0), 0;
    const Eigen::Matrix3d Ic = m.I[i].M.template block<3, 3>(0, 0) - mass * C * C.transpose();
    const Eigen::Vector3d d = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(0.5 * (Ic + Ic.transpose()), Eigen::EigenvaluesOnly).eigenvalues();
    const double slop = rel_slop * std::fabs(d.sum());
    if (d(0) + d(1) < d(2) - slop) {
      char b[160];
      std::snprintf(b, sizeof b, "principal moments %.6g, %.6g, %.6g break A + B >= C", d(0), d(1), d(2));
      return "body '" + m.body_name[i] + "': " + b;
    }
  }
  return "";
}

}  // namespace rbd
