# Cross-compiling the C core and its C tests for 64-bit ARM Linux with clang
# (the Swift toolchain's, or Debian's) against Debian's arm64 cross C library
# (gcc-aarch64-linux-gnu, libc6-dev-arm64-cross) and the build machine's
# libatomic_ops headers (header-inline primitives only; see CMakeLists.txt).
# Used by Tests/run-arm64.sh, which runs the result under qemu-aarch64.
#
#   cmake -S . -B build/arm64 -G Ninja -DFLARE_SWIFT=OFF \
#         -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(FLARE_CROSS_TRIPLE aarch64-linux-gnu)
if(NOT CMAKE_C_COMPILER)
  find_program(FLARE_CROSS_CLANG NAMES clang PATHS /opt/swift/usr/bin NO_DEFAULT_PATH)
  find_program(FLARE_CROSS_CLANG NAMES clang)
  set(CMAKE_C_COMPILER ${FLARE_CROSS_CLANG})
endif()
set(CMAKE_C_COMPILER_TARGET ${FLARE_CROSS_TRIPLE})
# No CMAKE_SYSROOT: clang finds the Debian cross toolchain under
# /usr/lib/gcc-cross and /usr/${FLARE_CROSS_TRIPLE} by itself.
# Search the cross C library for libraries, never the build machine's.
set(CMAKE_FIND_ROOT_PATH /usr/${FLARE_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64;-L;/usr/${FLARE_CROSS_TRIPLE})
