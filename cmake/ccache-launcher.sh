#!/usr/bin/env bash
# The compiler launcher of every rbdref build when ccache is installed (CMakeLists.txt,
# RBDREF_CCACHE; docs/build.md, "Compiler cache"). Called as
#     ccache-launcher.sh SOURCE_ROOT CCACHE COMPILER ARGS...
# in the build folder. It makes a clone of the same commit in another folder hit the objects a build
# here stored:
# - CCACHE_BASEDIR is the source root, so ccache hashes the paths it knows as relative ones;
# - the paths CMake passes behind -Xclang (its precompiled header, -include-pch and -include),
#   which ccache leaves absolute, are made relative to the build folder;
# - a precompiled header embeds the absolute paths of its inputs, so its bytes differ between
#   folders: it is built by the compiler directly (never taken from the cache, whose copy would name
#   another folder's headers) and given a FILE.pch.sum, which ccache hashes instead of the header
#   (pch_external_checksum): the relative command line and the name and content of every input the
#   depfile lists.
set -euo pipefail
root=$1 ccache=$2
shift 2
args=() prev="" out="" depfile="" emit_pch=0
for a in "$@"; do
  if [ "$prev" = "-Xclang" ] && [ "${a#"$PWD"/}" != "$a" ]; then a=${a#"$PWD"/}; fi
  if [ "$a" = "-emit-pch" ] || { [ "$prev" = "-x" ] && [ "$a" = "c++-header" ]; }; then emit_pch=1; fi
  [ "$prev" = "-o" ] && out=$a
  [ "$prev" = "-MF" ] && depfile=$a
  args+=("$a")
  prev=$a
done
if [ "$emit_pch" -eq 0 ]; then
  export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=1 CCACHE_PCH_EXTSUM=1 \
    CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
  exec "$ccache" "${args[@]}"
fi
"${args[@]}"
{
  printf '%s\n' "${args[@]}" | sed "s|$root|@|g"
  sed -e 's/\\$//' -e '1s/^[^:]*://' "$depfile" | tr ' ' '\n' | sed '/^$/d' | while read -r f; do
    printf '%s ' "${f#"$root"}"
    sha256sum < "$f"
  done
} | sha256sum > "$out.sum.tmp"
mv "$out.sum.tmp" "$out.sum"
