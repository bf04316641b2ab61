// The quantity declaration (io/quantities.hpp) held against what does not read it: the golden
// fixtures (data written and checksummed before the declaration existed), the check names the
// engine checks emit, and the names prove gives what it encloses. A row that says something
// rbdref does not do fails here.
#include "fixtures/fixture.hpp"
#include "io/files.hpp"
#include "io/quantities.hpp"
#include "reports/compare.hpp"
#include "reports/reference_of.hpp"
#include "tests/rounded_engine.hpp"
#include "tests/test_paths.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace rbd::test {
namespace {

std::string src(const std::string& rel) { return std::string(::rbd::test::kSourceDir) + "/" + rel; }

const char* const kGoldens[] = {"double_pendulum", "all_joints", "slider_crank", "parallelogram", "box_contacts",
                                "pendulum_contacts"};

// Each key of `keys` is a row of `section` and they come in the section's order.
void expect_declared_in_order(const std::vector<std::string>& keys, QuantitySection section, const std::string& where) {
  const std::vector<const QuantityInfo*> rows = fixture_section(section);
  size_t at = 0;
  for (const std::string& k : keys) {
    const auto it = std::find_if(rows.begin() + static_cast<long>(at), rows.end(),
                                 [&](const QuantityInfo* r) { return k == r->fixture_key; });
    EXPECT_NE(it, rows.end()) << where << ": '" << k << "' is not a row of the section, or out of its order";
    if (it == rows.end()) return;
    at = static_cast<size_t>(it - rows.begin()) + 1;
  }
}

// The bundled golden fixtures store in each section exactly rows of that section, in the
// declaration's order (the byte order the writer keeps); the loop section stores every loop row.
// nlohmann::json sorts keys, so the order is read from the text.
TEST(Quantities, GoldenFixturesStoreTheDeclaredRowsInTheirOrder) {
  int sections = 0;
  for (const char* name : kGoldens) {
    const std::string file = src("fixtures/golden/") + name + ".fixture.json";
    const nlohmann::ordered_json doc = nlohmann::ordered_json::parse(read_text_file(file));
    for (const auto& s : doc.at("samples")) {
      const std::string where = std::string(name) + " " + s.at("id").get<std::string>();
      std::vector<std::string> tree;
      for (auto it = s.at("outputs").begin(); it != s.at("outputs").end(); ++it) tree.push_back(it.key());
      expect_declared_in_order(tree, QuantitySection::kTree, where + " outputs");
      ++sections;
      if (s.contains("loops")) {
        std::vector<std::string> loops, want;
        for (auto it = s["loops"].at("outputs").begin(); it != s["loops"].at("outputs").end(); ++it) loops.push_back(it.key());
        for (const QuantityInfo* r : fixture_section(QuantitySection::kLoops)) want.push_back(r->fixture_key);
        EXPECT_EQ(loops, want) << where << " loops";
        ++sections;
      }
      if (s.contains("contacts")) {
        std::vector<std::string> contacts;
        for (auto it = s["contacts"].at("outputs").begin(); it != s["contacts"].at("outputs").end(); ++it) contacts.push_back(it.key());
        expect_declared_in_order(contacts, QuantitySection::kContacts, where + " contacts");
        ++sections;
      }
    }
  }
  EXPECT_GE(sections, 6 * 8 + 2 * 8 + 2 * 8);
}

// Every engine quantity's reference is found where its row says, at every sample of the goldens
// that stores its section's values (the tree, the loops, a solved LCP, a successful impact).
TEST(Quantities, EveryEngineQuantityHasItsReferenceWhereItsRowSays) {
  std::set<std::string> found;
  for (const char* name : kGoldens) {
    const Fixture f = read_fixture_file(src("fixtures/golden/") + name + ".fixture.json");
    for (const Sample& s : f.samples)
      for (const std::string& q : quantity_names())
        if (reference_of(s, q)) found.insert(q);
  }
  for (const std::string& q : quantity_names()) EXPECT_TRUE(found.count(q)) << q << ": no golden sample has its reference";
}

// The checks a row names are checks the engine checks run: a perfect double engine (the goldens'
// references rounded to double, every engine quantity) is checked and the names it gets are the
// union over the goldens; a check that only an elastic impact runs comes from a fixture made here.
TEST(Quantities, DeclaredChecksAreOnesTheEngineChecksRun) {
  std::vector<Fixture> fixtures;
  for (const char* name : kGoldens) fixtures.push_back(read_fixture_file(src("fixtures/golden/") + name + ".fixture.json"));
  LoadOptions lo;
  lo.floating_base = true;
  lo.contacts_file = src("fixtures/models/contacts/box_on_ground_elastic.contacts.json");
  fixtures.push_back(make_fixture(load_model(src("fixtures/models/contacts/box.urdf"), lo), 4, 5, *Precision::parse("bin50")));
  std::set<std::string> run;
  for (const Fixture& f : fixtures) {
    const QuantityDims dims = contact_dims(f.model);
    const EngineOutput e = rounded_reference_engine(f, "roundoff", "1", [&](const Sample& s, EngineSample& es) {
      for (const std::string& q : quantity_names()) {
        const Quantity* ref = reference_of(s, q);
        if (!ref) continue;
        es.values[q] = rounded_to_double(*ref);
        if (find_quantity(q)->engine_length == QuantityLength::kRigidContacts) {  // the LCP's entries, 0 elsewhere
          NumMatrix full;
          full.rows = dims.rigid;
          size_t k = 0;
          for (const ContactDesc& c : f.model.contacts) {
            if (c.stiffness || c.damping) continue;
            const bool in_lcp = std::find(s.ref.contacts.rigid.begin(), s.ref.contacts.rigid.end(), c.name) != s.ref.contacts.rigid.end();
            full.v.push_back(in_lcp ? es.values[q].v[k++] : Num::exact(0.0));
          }
          es.values[q] = full;
        }
      }
    });
    for (const SampleCheck& c : check_engine_output(e, "engine.json", &f.model)) run.insert(c.result.name);
  }
  int declared = 0;
  for (const QuantityInfo& q : quantity_table()) {
    std::istringstream names(q.checks);
    for (std::string c; names >> c; ++declared) EXPECT_TRUE(run.count(c)) << q.name << " names check '" << c << "', which no run emits";
  }
  EXPECT_GE(declared, 20);
}

// The rows marked proven are the ones prove encloses or says why not: a proved fixture of a loop
// model and of a contact model names each such row's proof_name at every sample storing it.
TEST(Quantities, ProvenRowsAreTheOnesProveNames) {
  LoadOptions loops;
  loops.loops_file = src("fixtures/models/loops/slider_crank.loops.json");
  LoadOptions contacts;
  contacts.contacts_file = src("fixtures/models/contacts/double_pendulum_floor.contacts.json");
  const Precision p = *Precision::parse("bin50");
  const Fixture fl = make_fixture(load_model(src("fixtures/models/loops/slider_crank.urdf"), loops), 2, 3, p, 1, true);
  const Fixture fc = make_fixture(load_model(src("fixtures/models/double_pendulum.urdf"), contacts), 3, 3, p, 1, true);
  int checked = 0;
  for (const Fixture* f : {&fl, &fc}) {
    const json doc = json::parse(fixture_text(fixture_to_json(*f)));
    for (const json& s : doc.at("samples")) {
      const json& proof = s.at("proof");
      std::set<std::string> named;
      for (const json* part : {&proof.at("digits"), &proof.at("not_proven")})
        for (auto it = part->begin(); it != part->end(); ++it) named.insert(it.key());
      for (const QuantityInfo& q : quantity_table()) {
        if (!q.proven) continue;
        const std::string section = q.section == QuantitySection::kTree    ? "outputs"
                                    : q.section == QuantitySection::kLoops ? "loops"
                                                                           : "contacts";
        const json* stored = q.section == QuantitySection::kTree ? &s.at("outputs")
                             : s.contains(section)               ? &s[section].at("outputs")
                                                                 : nullptr;
        if (!stored || !stored->is_object() || !stored->contains(q.fixture_key)) continue;
        EXPECT_TRUE(named.count(q.proof_name())) << s.at("id") << ": " << q.proof_name() << " is stored and marked proven, prove does not name it";
        ++checked;
      }
    }
  }
  EXPECT_GE(checked, 2 * 16 + 3 * 12);
}

// The length rules against the models' counts: a frictional contact gives three impulse
// components, a frictionless one one, soft contacts none (RBDA §11.7, §11.8).
TEST(Quantities, LengthRulesReadTheModel) {
  LoadOptions lo;
  lo.floating_base = true;
  lo.contacts_file = src("fixtures/models/contacts/box_on_ground.contacts.json");
  ModelDesc d = load_model(src("fixtures/models/contacts/box.urdf"), lo).desc;
  QuantityDims dims = contact_dims(d);
  EXPECT_EQ(dims.rigid, 4);
  EXPECT_EQ(dims.impulses, 4);
  d.contacts[0].friction = Num::exact(0.5);
  dims = contact_dims(d);
  EXPECT_EQ(dims.impulses, 3 + 1 + 1 + 1);
  d.contacts[1].stiffness = Num::exact(1e4);
  dims = contact_dims(d);
  EXPECT_EQ(dims.rigid, 3);
  EXPECT_EQ(dims.impulses, 3 + 1 + 1);
  dims.nv = 6;
  EXPECT_EQ(quantity_shape(find_quantity("impact_lambda")->engine_length, dims).rows, 5);
  EXPECT_EQ(quantity_shape(find_quantity("contact_lambda")->engine_length, dims).rows, 3);
  const QuantityShape h = quantity_shape(find_quantity("H")->engine_length, dims);
  EXPECT_EQ(h.rows, 6);
  EXPECT_EQ(h.cols, 6);
}

}  // namespace
}  // namespace rbd::test
