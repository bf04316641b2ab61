// URDF import and dynamics against an independent implementation: Orocos KDL (Debian's
// liborocos-kdl and kdl_parser, which reads the URDF through urdfdom). Same file, same state;
// KDL's RNE (inverse dynamics) and ChainDynParam (H) at double against rbdref at 50 digits.
// Agreement to ~13 digits shows that both read the URDF the same way (origins, rpy, axes,
// inertial frames, fixed-joint merging) — the place where engines most often differ.
#include "io/model_io.hpp"
#include "tests/test_paths.hpp"
#include "reference/tree/crba.hpp"
#include "reference/tree/rnea.hpp"
#include "tests/test_util.hpp"

#include <kdl/chaindynparam.hpp>
#include <kdl/chainidsolver_recursive_newton_euler.hpp>
#include <kdl/tree.hpp>
#include <kdl_parser/kdl_parser.hpp>

namespace rbd::test {
namespace {

struct KdlCase {
  const char* file;
  const char* tip;
};

void PrintTo(const KdlCase& c, std::ostream* os) { *os << c.file; }

class KdlCrossCheck : public ::testing::TestWithParam<KdlCase> {};

TEST_P(KdlCrossCheck, InverseDynamicsAndMassMatrixAgreeWithKdl) {
  const std::string path = std::string(::rbd::test::kSourceDir) + "/fixtures/models/" + GetParam().file;
  const LoadedModel lm = load_model(path);
  const Model<bin50> m = build_model<bin50>(lm.desc);
  KDL::Tree tree;
  ASSERT_TRUE(kdl_parser::treeFromString(read_text_file(path), tree));
  KDL::Chain chain;
  ASSERT_TRUE(tree.getChain("base", GetParam().tip, chain));
  ASSERT_EQ(static_cast<int>(chain.getNrOfJoints()), m.nv);
  const KDL::Vector g(0, 0, -9.81);
  KDL::ChainIdSolver_RNE rne(chain, g);
  KDL::ChainDynParam dyn(chain, g);
  Rand r;
  for (int n = 0; n < 5; ++n) {
    KDL::JntArray q(m.nv), qd(m.nv), qdd(m.nv), tau(m.nv);
    VecX<bin50> Q(m.nv), Qd(m.nv), Qdd(m.nv);
    for (int i = 0; i < m.nv; ++i) {
      Q(i) = bin50(q(i) = r(-2.5, 2.5));
      Qd(i) = bin50(qd(i) = r(-2, 2));
      Qdd(i) = bin50(qdd(i) = r(-3, 3));
    }
    KDL::Wrenches f(chain.getNrOfSegments(), KDL::Wrench::Zero());
    ASSERT_GE(rne.CartToJnt(q, qd, qdd, f, tau), 0);
    KDL::JntSpaceInertiaMatrix H(m.nv);
    ASSERT_GE(dyn.JntToMass(q, H), 0);
    // Gravity: KDL takes 9.81 as the double nearest it; the model reads "-9.81" as a decimal, a
    // difference of ~1e-16 relative, below what is asserted here.
    const VecX<bin50> tau_ref = rnea<bin50>(m, Q, Qd, Qdd);
    const MatX<bin50> H_ref = crba<bin50>(m, Q);
    double et = 0, eH = 0, st = 0, sH = 0;
    for (int i = 0; i < m.nv; ++i) {
      et = std::max(et, std::abs(tau(i) - static_cast<double>(tau_ref(i))));
      st = std::max(st, std::abs(static_cast<double>(tau_ref(i))));
      for (int j = 0; j < m.nv; ++j) {
        eH = std::max(eH, std::abs(H(i, j) - static_cast<double>(H_ref(i, j))));
        sH = std::max(sH, std::abs(static_cast<double>(H_ref(i, j))));
      }
    }
    RBD_EXPECT_RESIDUAL(et / st, 1e-12, std::string("tau vs KDL RNE, ") + GetParam().file);
    RBD_EXPECT_RESIDUAL(eH / sH, 1e-12, std::string("H vs KDL ChainDynParam, ") + GetParam().file);
  }
}

INSTANTIATE_TEST_SUITE_P(Models, KdlCrossCheck,
                         ::testing::Values(KdlCase{"double_pendulum.urdf", "link2"}, KdlCase{"arm7.urdf", "tool"}),
                         // Stable names (the default prints the struct's bytes, pointers included,
                         // which differ between ctest's discovery run and the test run).
                         [](const ::testing::TestParamInfo<KdlCase>& info) {
                           std::string n = info.param.file;
                           return n.substr(0, n.find('.'));
                         });

}  // namespace
}  // namespace rbd::test
