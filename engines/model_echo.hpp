// What the adapters' model echoes share (an engine output's model_echo, io/engine_output.hpp): the
// model as the engine holds it, read back body by body and compared with rbdref's at 50 digits;
// the worst of each error over the bodies, the tolerance and the verdict close the echo.
#pragma once

#include "reference/numeric/scalar.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace rbd {

// ε(double), and the echoes' relative tolerance: 64 ε for a value that crossed to the engine as a
// correctly rounded double.
constexpr double kEchoEps = std::numeric_limits<double>::epsilon();
constexpr double kEchoTol = 64 * kEchoEps;

// max |x_k| of a bin50 vector or matrix, as a double; 0 when x is empty.
template <class M>
double max_abs_d(const M& x) {
  return x.size() ? static_cast<double>(bin50(x.cwiseAbs().maxCoeff())) : 0.0;
}

// The worst of each of an echo's errors over its bodies (echo["max"]), each 0 before the first body.
class EchoWorst {
 public:
  // The errors' names, in echo["max"]'s order.
  explicit EchoWorst(std::initializer_list<const char*> names) {
    for (const char* n : names) worst_.emplace_back(n, 0.0);
  }
  // One body's errors, in the order of the names: each raises its worst.
  void raise(std::initializer_list<double> errors) {
    size_t k = 0;
    for (double e : errors) {
      double& w = worst_.at(k++).second;
      w = std::max(w, e);
    }
  }
  double operator[](const std::string& name) const {
    for (const auto& [n, w] : worst_)
      if (n == name) return w;
    throw std::out_of_range("the echo has no error " + name);
  }
  nlohmann::ordered_json json() const {
    nlohmann::ordered_json max = nlohmann::ordered_json::object();
    for (const auto& [n, w] : worst_) max[n] = w;
    return max;
  }

 private:
  std::vector<std::pair<std::string, double>> worst_;
};

// An echo's closing fields, after the adapter's own: max (the worst errors), tolerance, status
// ("match" or "differs"), bodies (one object per body).
inline void close_echo(nlohmann::ordered_json& echo, const EchoWorst& worst, nlohmann::ordered_json tolerance, bool match,
                       nlohmann::ordered_json bodies) {
  echo["max"] = worst.json();
  echo["tolerance"] = std::move(tolerance);
  echo["status"] = match ? "match" : "differs";
  echo["bodies"] = std::move(bodies);
}

}  // namespace rbd
