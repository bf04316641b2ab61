// The shared library's own symbol: the version it was built as (rbdrefConfigVersion.cmake's).
namespace rbd {
const char* library_version() { return "0.1.0"; }
}  // namespace rbd
