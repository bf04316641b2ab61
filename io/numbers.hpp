// Model numbers (Num) as the readers take them: exact doubles, and the checks of decimal text
// that is_decimal does not make (a nonzero mantissa, the size of the exponent).
#pragma once

#include "reference/tree/model.hpp"

#include <string>
#include <vector>

namespace rbd {

// Exact binary doubles as model numbers (Num::exact each).
std::vector<Num> exact_nums(const std::vector<double>& v);

// Whether the digits before the exponent of a decimal (one is_decimal accepts) are not all zero: a
// nonzero number that rounds to 0 at some precision (1e-400 in a double) is refused in models.
bool decimal_mantissa_nonzero(const std::string& s);

// Whether a decimal (one is_decimal accepts) has a decimal exponent of magnitude at most `limit`,
// counting the mantissa's digits: |exponent| + mantissa length <= limit. MPFR's default exponent
// range holds about ±3.2e8 decimal orders (kMpfrDecimalRange); fixtures, read in MPFR, refuse
// values beyond it (found by fuzz_fixture: "1e+00444...4" made compare throw).
bool decimal_exponent_within(const std::string& s, long long limit);
constexpr long long kMpfrDecimalRange = 300000000;

}  // namespace rbd
