// Where the tests find the source tree and the built `rbdref` command. Both are defined in one unit
// that tests/CMakeLists.txt generates, not by -D flags on every test unit: a flag holding an
// absolute path makes each unit's command line differ between two clones of the same commit, and
// every test unit would miss the compiler cache (docs/build.md, "Compiler cache").
#pragma once

namespace rbd::test {

extern const char* const kSourceDir;  // the source tree (fixtures/, fuzz/, tests/data/)
extern const char* const kRbdrefCli;  // the rbdref command of this build

}  // namespace rbd::test
