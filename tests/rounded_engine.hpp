// The engine the comparison tests score: a perfect double engine, whose output holds a fixture's
// own reference values rounded to the nearest double, with the fixture's model, DoFs and each
// sample's inputs (exact doubles, as an engine echoes them). An error planted in it must be found.
#pragma once

#include "engines/values.hpp"
#include "fixtures/fixture.hpp"
#include "io/engine_output.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace rbd::test {

// A fixture quantity rounded entry by entry to the nearest double (a vector: its size rows, 0 cols).
inline NumMatrix rounded_to_double(const Quantity& q) {
  NumMatrix m;
  m.rows = q.cols == 0 ? static_cast<int>(q.values.size()) : q.rows;
  m.cols = q.cols;
  for (const std::string& v : q.values) m.v.push_back(Num::exact(from_decimal<double>(v)));
  return m;
}

// The output of double engine `engine` (version `version`) on f: f's model and DoFs, and per
// sample its inputs and what fill(sample, engine_sample) puts in.
template <class Fill>
EngineOutput rounded_reference_engine(const Fixture& f, const std::string& engine, const std::string& version, Fill&& fill) {
  EngineOutput e;
  e.engine = engine;
  e.engine_version = version;
  e.scalar = "double";
  e.model_name = f.model.name;
  e.model_sha256 = f.model_sha256;
  e.dofs = f.dofs;
  for (const Sample& s : f.samples) {
    EngineSample es = engine_sample_of(s);
    fill(s, es);
    e.samples.push_back(es);
  }
  return e;
}
// ... holding the quantities `names` (the fixture's names) of each sample that has them, rounded.
inline EngineOutput rounded_reference_engine(const Fixture& f, const std::string& engine, const std::string& version,
                                             const std::vector<std::string>& names) {
  return rounded_reference_engine(f, engine, version, [&](const Sample& s, EngineSample& es) {
    for (const std::string& n : names)
      if (const Quantity* q = s.ref.find(n)) es.values[n] = rounded_to_double(*q);
  });
}

inline EngineSample& sample_of(EngineOutput& e, const std::string& id) {
  for (EngineSample& s : e.samples)
    if (s.id == id) return s;
  throw std::logic_error("no sample " + id);
}

}  // namespace rbd::test
