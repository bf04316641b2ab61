// The scalar layer: decimal input and output at full precision, Eigen's view of the Boost types,
// constants from the scalar type, MPFR's run-time precision.
#include "reference/tree/aba.hpp"
#include "reference/tree/build_model.hpp"
#include "reference/tree/crba.hpp"
#include "reference/tree/ltdl.hpp"
#include "reference/tree/rnea.hpp"
#include "tests/tree_cases.hpp"
#include "tests/test_util.hpp"

#include <Eigen/Eigenvalues>
#include <rapidcheck/gtest.h>

#include <random>
#include <regex>

namespace rbd::test {
namespace {

// T(9.81) is the double nearest 9.81 widened, not 9.81: from_decimal reads the decimal.
TEST(Scalar, DecimalIsNotItsDouble) {
  const bin50 exact = from_decimal<bin50>("9.81");
  EXPECT_NE(exact, bin50(9.81));
  EXPECT_EQ(exact * bin50(100), bin50(981));  // 981/100 rounded once; times 100 rounds back to 981
  EXPECT_EQ(from_decimal<double>("9.81"), 9.81);
}

TEST(Scalar, DecimalRoundTripsAtFullPrecision) {
  const bin50 x = bin50(1) / bin50(3);
  EXPECT_EQ(from_decimal<bin50>(to_decimal(x)), x);
  const bin100 y = sqrt(bin100(2));
  EXPECT_EQ(from_decimal<bin100>(to_decimal(y)), y);
  const float128 z = float128(1) / float128(7);
  EXPECT_EQ(from_decimal<float128>(to_decimal(z)), z);
  ScopedMpfrDigits d(300);
  const mpfr w = sqrt(mpfr(3));
  EXPECT_EQ(from_decimal<mpfr>(to_decimal(w)), w);
  EXPECT_EQ(digits10<mpfr>(), 300);
}

// mpfr50 (MPFR at a fixed 50 digits, on the stack) is the same arithmetic as mpfr at 50 digits:
// the same binary precision, so the tree algorithms give the same bits, on trees with every joint
// type; and its decimal text reads back. (Any change of precision or rounding shows as a
// difference in the last bits of some entry.)
TEST(Scalar, Mpfr50IsMpfrAtFiftyDigitsToTheLastBit) {
  const ScopedMpfrDigits d(50);
  EXPECT_EQ(mpfr_get_prec(mpfr50(1).backend().data()), mpfr_get_prec(mpfr(1).backend().data()));
  const mpfr50 w = sqrt(mpfr50(3));
  EXPECT_EQ(from_decimal<mpfr50>(to_decimal(w)), w);
  EXPECT_EQ(to_decimal(w), to_decimal(mpfr(sqrt(mpfr(3)))));
  EXPECT_EQ(digits10<mpfr50>(), 50);
  auto same = [](const auto& a, const auto& b, const char* what, std::uint64_t seed) {
    ASSERT_EQ(a.rows(), b.rows());
    ASSERT_EQ(a.cols(), b.cols());
    for (Eigen::Index i = 0; i < a.rows(); ++i)
      for (Eigen::Index j = 0; j < a.cols(); ++j)
        ASSERT_EQ(to_decimal(a(i, j)), to_decimal(b(i, j))) << what << " (" << i << ", " << j << "), seed " << seed;
  };
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    const RandomCase<mpfr> x = random_case<mpfr>(tree_spec(6 + static_cast<int>(seed % 3), 1.0, seed % 2 == 0), seed, seed, 2.0);
    const RandomCase<mpfr50> y = random_case<mpfr50>(x.desc, seed, 2.0);
    const Model<mpfr>& m = x.model;
    const Model<mpfr50>& m50 = y.model;
    same(rnea<mpfr>(m, x.q, x.qd, x.qdd), rnea<mpfr50>(m50, y.q, y.qd, y.qdd), "RNEA tau", seed);
    const MatX<mpfr> H = crba<mpfr>(m, x.q);
    const MatX<mpfr50> H50 = crba<mpfr50>(m50, y.q);
    same(H, H50, "CRBA H", seed);
    const AbaResult<mpfr> a = aba<mpfr>(m, x.q, x.qd, x.tau);
    const AbaResult<mpfr50> a50 = aba<mpfr50>(m50, y.q, y.qd, y.tau);
    ASSERT_TRUE(a.ok && a50.ok);
    same(a.qdd, a50.qdd, "ABA qdd", seed);
    same(ltdl<mpfr>(H, m.dof_parent).LD, ltdl<mpfr50>(H50, m50.dof_parent).LD, "LTDL LD", seed);
  }
}

// sin_cos against MPFR at twice the digits (so the reference's own error is negligible): every
// scalar's pair within a few units in its last place, on angles that reach every branch — zero,
// tiny, ordinary, next to multiples of π/4 (where the cpp_bin_float route's reduced argument
// reaches ±π/4, the end of its series' range, and the quadrant changes) and of π/2, negative, and
// beyond 1e9 — and the MPFR types exactly equal to Boost's sin and cos (the same correctly rounded
// values).
// x as an MPFR number at the precision in scope (d + 10 digits of T's value: exact enough), and
// the unit ε of T: the two yardsticks of the accuracy tests below.
template <class T>
mpfr widened(const T& x) {
  return from_decimal<mpfr>(to_decimal(x, digits10<T>() + 10));
}
template <class T>
mpfr unit_of() {
  return from_decimal<mpfr>(to_decimal(epsilon<T>(), 20));
}

template <class T>
void expect_sin_cos_accurate(double max_ulps) {
  const int d = digits10<T>();
  const ScopedMpfrDigits wide(static_cast<unsigned>(2 * d + 20));
  const mpfr pi_w = boost::math::constants::pi<mpfr>();
  std::vector<mpfr> angles = {mpfr(0), mpfr("1e-30"), mpfr("-3e-9"), mpfr("0.5"), mpfr(1), mpfr(-2), mpfr(3),
                              mpfr("7.25"), mpfr(-100), mpfr("12345.678"), mpfr("2e9"), mpfr("-3.5e12")};
  for (int k = -8; k <= 8; ++k)
    for (const char* off : {"0", "1e-12", "-1e-12", "1e-40", "3e-3"}) angles.push_back(pi_w * k / 4 + mpfr(off));
  for (const mpfr& a : angles) {
    const T th = from_decimal<T>(a.str(2 * d + 20, std::ios_base::scientific));
    const mpfr th_w = widened(th);  // θ as T holds it
    T s, c;
    sin_cos(th, s, c);
    const mpfr s_w = sin(th_w), c_w = cos(th_w);
    const mpfr ulp = unit_of<T>();
    // In units of ε·max(|exact|, 1): relative where |exact| >= 1, and absolute for small values,
    // whose digits come from the sine's own series (and its argument reduction) in every route.
    auto err = [&](const T& x, const mpfr& exact) {
      const mpfr e = abs(widened(x) - exact);
      const mpfr scale = abs(exact) > mpfr(1) ? abs(exact) : mpfr(1);
      return static_cast<double>(mpfr(e / (scale * ulp)));
    };
    EXPECT_LE(err(s, s_w), max_ulps) << "sin " << to_decimal(th) << " " << typeid(T).name();
    EXPECT_LE(err(c, c_w), max_ulps) << "cos " << to_decimal(th) << " " << typeid(T).name();
  }
}

TEST(Scalar, SinCosIsAccurateForEveryScalar) {
  expect_sin_cos_accurate<double>(1.0);
  expect_sin_cos_accurate<long double>(1.0);
  expect_sin_cos_accurate<float128>(1.0);
  expect_sin_cos_accurate<bin50>(6.0);
  expect_sin_cos_accurate<bin100>(6.0);
  {
    const ScopedMpfrDigits d50(50);
    for (const char* a : {"0", "0.7853981", "-2.5", "1e10", "3.14159265358979"}) {
      const mpfr50 t(a);
      mpfr50 s, c;
      sin_cos(t, s, c);
      EXPECT_EQ(s, sin(t)) << a;
      EXPECT_EQ(c, cos(t)) << a;
      const mpfr u(a);
      mpfr su, cu;
      sin_cos(u, su, cu);
      EXPECT_EQ(su, sin(u)) << a;
      EXPECT_EQ(cu, cos(u)) << a;
      EXPECT_EQ(su.precision(), 50u);
    }
  }
}

// The two pieces of the cpp_bin_float route, each against MPFR at 2·digits + 20 on its whole
// range: detail::sin_taylor on |r| <= π/4 (the series' last term is largest at the ends) and
// detail::sqrt_half_to_one on [1/2, 1], both within one unit of 2^-digits of the exact value.
template <class T>
void expect_series_and_root_accurate() {
  const int d = digits10<T>();
  const ScopedMpfrDigits wide(static_cast<unsigned>(2 * d + 20));
  const mpfr quarter_pi = boost::math::constants::pi<mpfr>() / 4;
  const mpfr ulp = unit_of<T>();
  for (int k = -64; k <= 64; ++k) {
    const T r = from_decimal<T>(mpfr(quarter_pi * k / 64).str(2 * d + 20, std::ios_base::scientific));
    const mpfr exact = sin(widened(r));
    EXPECT_LE(static_cast<double>(mpfr(abs(mpfr(widened(detail::sin_taylor(r)) - exact)) / ulp)), 1.0) << "sin " << to_decimal(r);
    const T a = T(1) / 2 + T(k + 64) / T(256);  // [1/2, 1]
    const mpfr root = sqrt(widened(a));
    EXPECT_LE(static_cast<double>(mpfr(abs(mpfr(widened(detail::sqrt_half_to_one(a)) - root)) / (root * ulp))), 1.0)
        << "sqrt " << to_decimal(a);
  }
}

TEST(Scalar, SineSeriesAndRootOfTheBinaryFloatsAreWithinAUnit) {
  expect_series_and_root_accurate<bin50>();
  expect_series_and_root_accurate<bin100>();
}

// to_decimal(x, n) writes n significant digits at every scalar (Boost's str(n, scientific) writes
// n after the point, one more than asked, which it did here until 2026-11-26).
TEST(Scalar, ToDecimalWritesTheDigitsAsked) {
  const ScopedMpfrDigits d50(50);
  EXPECT_EQ(to_decimal(1.0 / 3, 5), "3.3333e-01");
  EXPECT_EQ(to_decimal(1.0L / 3, 5), "3.3333e-01");
  EXPECT_EQ(to_decimal(float128(1) / 3, 5), "3.3333e-01");
  EXPECT_EQ(to_decimal(bin50(-2) / 3, 7), "-6.666667e-01");
  EXPECT_EQ(to_decimal(bin100(1) / 3, 1), "3e-01");
  EXPECT_EQ(to_decimal(mpfr(1) / 3, 5), "3.3333e-01");
  EXPECT_EQ(to_decimal(mpfr50(1) / 3, 5), "3.3333e-01");
  // by default: enough digits to read the value back (Scalar.DecimalRoundTripsAtFullPrecision)
  EXPECT_EQ(to_decimal(bin50(1) / 3).size(), std::string("3.").size() + 53 + std::string("e-01").size());
  EXPECT_EQ(to_decimal(bin50(-2) / 3, 1), "-7e-01");
  EXPECT_EQ(to_decimal(mpfr(-2) / 3, 1), "-7e-01");
}

// x's exact decimal expansion (x = m 2^p: m 5^-p 10^p, or m 2^p an integer) rounded to n significant
// digits, ties to even, on the digit string: the independent route for the test below.
template <class T>
std::string exact_then_rounded(const T& x, int n) {
  using boost::multiprecision::cpp_int;
  const auto& b = x.backend();
  const long long p = static_cast<long long>(b.exponent()) - static_cast<long long>(std::decay_t<decltype(b)>::bit_count) + 1;
  cpp_int m(b.bits());
  long long p10 = 0;  // |x| = m × 10^p10
  if (p >= 0) m <<= static_cast<unsigned>(p);
  else m *= boost::multiprecision::pow(cpp_int(5), static_cast<unsigned>(-p)), p10 = p;
  std::string d = m.str();
  long long E = static_cast<long long>(d.size()) - 1 + p10;
  if (d.size() > static_cast<size_t>(n)) {
    const char next = d[static_cast<size_t>(n)];
    const bool rest = d.find_first_not_of('0', static_cast<size_t>(n) + 1) != std::string::npos;
    bool up = next > '5' || (next == '5' && (rest || (d[static_cast<size_t>(n) - 1] - '0') % 2 == 1));
    d.resize(static_cast<size_t>(n));
    for (int k = n - 1; up && k >= 0; --k) {
      up = d[static_cast<size_t>(k)] == '9';
      d[static_cast<size_t>(k)] = up ? '0' : static_cast<char>(d[static_cast<size_t>(k)] + 1);
    }
    if (up) d = "1" + d.substr(0, d.size() - 1), ++E;
  }
  d.resize(static_cast<size_t>(n), '0');
  char e[32];
  std::snprintf(e, sizeof e, "e%c%02lld", E < 0 ? '-' : '+', E < 0 ? -E : E);
  return std::string(b.sign() ? "-" : "") + d[0] + (n > 1 ? "." + d.substr(1) : "") + e;
}

// to_decimal's own conversion of bin50 and bin100 (limbs, for the fixtures' millions of values)
// is the exact value correctly rounded, at every digit count, on random mantissas over the whole
// range it handles and past it (Boost's str there), on short binary fractions (exact ties), and
// next to powers of ten (where the first estimate of the decimal exponent is one off).
template <class T>
void text_is_correctly_rounded() {
  std::mt19937_64 g(20261126);
  std::uniform_real_distribution<double> u(-1, 1);
  const int most = std::numeric_limits<T>::max_digits10 + 1;
  std::uniform_int_distribution<int> binary_exponent(-1400, 1400), digits(1, most);
  int checked = 0;
  for (int i = 0; i < 3000; ++i) {
    T x = T(u(g));
    for (int k = 1; k * 16 < most + 16; ++k) x += T(u(g)) * pow(T(10), -16 * k);
    if (i % 4 == 0) x = ldexp(x, binary_exponent(g));
    if (i % 4 == 1) x = T(static_cast<int>(u(g) * 4096)) / 64;  // ties at a few digits
    if (i % 4 == 2) x = pow(T(10), static_cast<int>(u(g) * 60)) * (T(1) + T(u(g)) * pow(T(10), -most + 3));
    if (i % 50 == 3) x = ldexp(T(u(g)), 5000);  // past the table: Boost's str
    if (x == 0) continue;
    const int n = i % 7 == 0 ? most : digits(g);
    ASSERT_EQ(to_decimal(x, n), exact_then_rounded(x, n)) << "value " << i << ", " << n << " digits";
    ++checked;
  }
  EXPECT_GT(checked, 2900);
  EXPECT_EQ(to_decimal(T(0), 3), "0.00e+00");
  EXPECT_EQ(to_decimal(T(-1) / 8, 2), "-1.2e-01");  // a tie: to even
  EXPECT_EQ(to_decimal(T(3) / 8, 2), "3.8e-01");
}

TEST(Scalar, BinaryFloatTextIsCorrectlyRounded) {
  text_is_correctly_rounded<bin50>();
  text_is_correctly_rounded<bin100>();
}

TEST(Scalar, MalformedDecimalsAreRejected) {
  for (const char* s : {"", "inf", "nan", "0x1p3", "1e", "--1", "1.2.3", "abc"}) {
    EXPECT_FALSE(is_decimal(s)) << s;
    EXPECT_THROW(from_decimal<bin50>(s), std::invalid_argument) << s;
  }
  for (const char* s : {"0", "-2.5e-3", "1E+2", ".5", "5."}) EXPECT_TRUE(is_decimal(s)) << s;
}

// is_decimal is the grammar its regular expression states, on every short string of the characters
// that matter, and stays a loop on long ones (std::regex overflowed the stack on about 30 000
// digits; found by a long decimal string in a state file).
RC_GTEST_PROP(Scalar, IsDecimalIsItsRegularExpression, ()) {
  static const std::regex re(R"([+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)");  // no surrounding spaces
  const std::string s = *rc::gen::container<std::string>(rc::gen::elementOf(std::string(" \t\n+-.eE019x\0", 13)));
  RC_ASSERT(is_decimal(s) == std::regex_match(s, re));
}

TEST(Scalar, LongDecimalsAreReadWithoutRecursion) {
  const std::string s = "-0." + std::string(1000000, '3') + "e-2";
  EXPECT_TRUE(is_decimal(s));
  EXPECT_FALSE(is_decimal(s + "x"));
  EXPECT_EQ(from_decimal<bin50>(s), from_decimal<bin50>("-0.00" + std::string(60, '3')));
}

// Exponents far outside a cpp_bin_float's range read as a signed zero or are out of range, without
// going through Boost's conversion, whose error bound overflows (undefined behaviour) on exponents
// of some 50 bits (found by fuzz_urdf under UBSan: rpy="0 3.141e-3201592653589793 0").
TEST(Scalar, ExponentsBeyondTheRangeOfBinFloatAreZeroOrOutOfRange) {
  EXPECT_EQ(from_decimal<bin50>("3.141e-3201592653589793"), bin50(0));
  EXPECT_TRUE(signbit(from_decimal<bin100>("-1e-99999999999999999999999999999")));
  EXPECT_EQ(from_decimal<bin50>("-0.000e99999999999999"), bin50(0));
  EXPECT_THROW(from_decimal<bin50>("1e3201592653589793"), std::invalid_argument);
  EXPECT_THROW(from_decimal<bin100>("0.0001e646392386"), std::invalid_argument);
  // Inside the range, Boost reads the number as before.
  EXPECT_EQ(from_decimal<bin50>("0.00000000000000000000000000000000000000012345e40"), from_decimal<bin50>("1.2345"));
  EXPECT_GT(from_decimal<bin50>("1e-646392000"), bin50(0));
  EXPECT_LT(from_decimal<bin100>("9.99e646392000"), std::numeric_limits<bin100>::infinity());
}

// π from the scalar type: agrees with the published 60-digit value to the digits of T.
// Whatever is_decimal accepts, every from_decimal reads, surrounding whitespace included (Boost,
// MPFR and libquadmath reject it on their own; found by fuzz_state).
// Every scalar reads what is_decimal accepts, and refuses (std::invalid_argument, which the
// readers turn into exit 2 naming the field) what it does not: numbers with surrounding spaces
// are refused everywhere alike (Boost's and MPFR's parsers reject them, strtod would skip them),
// so that no precision reads a text another refuses. Readers of formats where spaces separate
// numbers (URDF attributes) trim before asking.
TEST(Scalar, EveryScalarReadsWhatIsDecimalAccepts) {
  for (const char* s : {"0.5", "+5e-1", ".5", "5.E-1", "0.50000000000000000000000000000000000000000000000000000"}) {
    ASSERT_TRUE(is_decimal(s)) << s;
    EXPECT_EQ(from_decimal<double>(s), 0.5) << s;
    EXPECT_EQ(from_decimal<long double>(s), 0.5L) << s;
    EXPECT_EQ(from_decimal<float128>(s), float128(0.5)) << s;
    EXPECT_EQ(from_decimal<bin50>(s), bin50(0.5)) << s;
    EXPECT_EQ(from_decimal<bin100>(s), bin100(0.5)) << s;
    ScopedMpfrDigits digits(30);
    EXPECT_EQ(from_decimal<mpfr>(s), mpfr(0.5)) << s;
  }
  for (const char* s : {" 0.5", "0.5 ", "\t0.5\n", " +5e-1\r\n"}) {
    EXPECT_FALSE(is_decimal(s)) << s;
    EXPECT_THROW(from_decimal<double>(s), std::invalid_argument) << s;
    EXPECT_THROW(from_decimal<float128>(s), std::invalid_argument) << s;
    EXPECT_THROW(from_decimal<bin50>(s), std::invalid_argument) << s;
    ScopedMpfrDigits digits(30);
    EXPECT_THROW(from_decimal<mpfr>(s), std::invalid_argument) << s;
  }
}

TEST(Scalar, PiHasTheDigitsOfTheScalar) {
  const char* pi60 = "3.14159265358979323846264338327950288419716939937510582097494";
  EXPECT_LE(static_cast<double>(bin50(abs(bin50(pi<bin50>() - from_decimal<bin50>(pi60))))), 1e-49);
  EXPECT_LE(static_cast<double>(bin100(abs(bin100(pi<bin100>() - from_decimal<bin100>(pi60))))), 1e-59);
}

// The project's NumTraits: lowest() is the most negative number (Boost 1.74's returns the
// smallest positive one), infinity and NaN exist, and SelfAdjointEigenSolver works at 50 digits:
// the eigenvalues of [[2, 1], [1, 2]] are 1 and 3.
TEST(Scalar, EigenNumTraitsAreSound) {
  using NT = Eigen::NumTraits<bin50>;
  EXPECT_LT(NT::lowest(), bin50(-1e300));
  EXPECT_TRUE(isinf(NT::infinity()));
  EXPECT_TRUE(isnan(NT::quiet_NaN()));
  Eigen::Matrix<bin50, 2, 2> A;
  A << bin50(2), bin50(1), bin50(1), bin50(2);
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix<bin50, 2, 2>> es(A);
  EXPECT_LE(static_cast<double>(bin50(abs(bin50(es.eigenvalues()(0) - bin50(1))))), 1e-48);
  EXPECT_LE(static_cast<double>(bin50(abs(bin50(es.eigenvalues()(1) - bin50(3))))), 1e-48);
}


// round_significant (fixtures store each value to its certified digits): rounding half away from
// zero on the written digits, the carry into a new leading digit, leading zeros, and no change to
// text that has no more digits than asked.
TEST(Scalar, RoundSignificantRoundsTheWrittenDigits) {
  EXPECT_EQ(round_significant("1.23456e-02", 3), "1.23e-02");
  EXPECT_EQ(round_significant("1.23556e-02", 3), "1.24e-02");
  EXPECT_EQ(round_significant("123.45", 4), "1.235e+02");          // a half goes away from zero
  EXPECT_EQ(round_significant("-123.45", 4), "-1.235e+02");
  EXPECT_EQ(round_significant("9.996e+00", 3), "1e+01");           // carry into a new digit
  EXPECT_EQ(round_significant("-0.000123456", 2), "-1.2e-04");     // leading zeros after the point
  EXPECT_EQ(round_significant("1.2000000000000000000009e+300", 5), "1.2e+300");  // trailing zeros dropped
  EXPECT_EQ(round_significant("0.000000000e+00", 3), "0");        // zero: no digit carries anything
  EXPECT_EQ(round_significant("-0.0e+00", 30), "-0");               // its sign kept
  EXPECT_EQ(round_significant("1.25e-3", 3), "1.25e-3");           // no more digits than asked: unchanged
  EXPECT_EQ(round_significant("nan", 3), "nan");
}

// For any bin50 value: the rounded text is within half a unit of its last digit of the value, and
// rounding it again changes nothing.
RC_GTEST_PROP(Scalar, RoundSignificantIsWithinHalfAUnitAndIdempotent, ()) {
  const double m = *rc::gen::inRange(-1000000, 1000000) / 1000.0;
  const int e = *rc::gen::inRange(-300, 300);
  const int sig = *rc::gen::inRange(1, 52);
  const bin50 x = bin50(m) * pow(bin50(10), e) / bin50(7);
  RC_PRE(x != 0);
  const std::string t = to_decimal(x), r = round_significant(t, sig);
  RC_ASSERT(round_significant(r, sig) == r);
  ScopedMpfrDigits guard(120);
  const mpfr xv = from_decimal<mpfr>(t), rv = from_decimal<mpfr>(r);
  // the last kept digit has weight 10^(floor(log10|x|) - sig + 1); allow the exact half
  const mpfr unit = pow(mpfr(10), mpfr(floor(log10(abs(xv))) - sig + 1));
  RC_ASSERT(abs(mpfr(rv - xv)) <= unit / 2 * (1 + mpfr(1e-30)));
}

}  // namespace
}  // namespace rbd::test
