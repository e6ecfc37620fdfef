# Shared set-up for tools/run and tools/test (sourced): installs the Debian packages the build
# needs when they are missing, then configures and builds Release into build/ (or, for
# tools/test --sanitize and tools/fuzz, the clang sanitizer build into build-sanitize/).
#
# What the simulator needs to build and run (tools/run): the compiler, the libraries it links
# (Eigen, stb, zlib, CLI11, nlohmann-json, tinygltf, tinyobjloader, NLopt for `calibrate`) and ccache
# (CMakeLists.txt TBDR_CCACHE: a clean clone reuses this machine's objects).
TBDR_RUN_PACKAGES="cmake g++ make pkg-config libeigen3-dev libstb-dev zlib1g-dev libcli11-dev nlohmann-json3-dev libtinygltf-dev libtinyobjloader-dev libnlopt-cxx-dev ccache"
# Everything below is for tools/test only: the tests, the benchmarks and the tools they drive.
# GoogleTest and Google Benchmark; the reference renderer build/refrender on Mesa's EGL/GL (llvmpipe);
# the bundled scenes' sources (glmark2's models, assimp's test models); tools/plot_sweep.py's plots.
TBDR_PACKAGES="libbenchmark-dev libgtest-dev libegl-dev libgl-dev libegl-mesa0 libgl1-mesa-dri glmark2-data assimp-testmodels python3-matplotlib"
# Captured frames (tools/capture, tools/rdc2trace, tools/samples and their `external` tests).
TBDR_PACKAGES="$TBDR_PACKAGES renderdoccmd python3-renderdoc librenderdoc-dev vulkan-tools mesa-vulkan-drivers gfxreconstruct glslang-tools libvulkan-dev xvfb xauth"
# tools/rdcconv/textures.py decodes material textures (numpy; Pillow's BC1 - BC7 decoder).
TBDR_PACKAGES="$TBDR_PACKAGES python3-numpy python3-pil"
# OpenGL ES captures (glmark2-es2 scenes and tools/samples/gl_sample, tests/capture_glmark2_test.cpp, tests/capture_gl_test.cpp).
TBDR_PACKAGES="$TBDR_PACKAGES glmark2-es2-x11 libgles-dev libx11-dev"
# A core-profile OpenGL game (Endless Sky: SDL2, GLEW, GLX), captured by tests/capture_gl_test.cpp.
TBDR_PACKAGES="$TBDR_PACKAGES endless-sky"
# Direct3D 12 programs run on Vulkan through vkd3d (vkd3d-gears), captured by tests/capture_vulkan_test.cpp.
TBDR_PACKAGES="$TBDR_PACKAGES vkd3d-demos"
# Two more core-profile OpenGL games, data included, for tools/real_frames: SuperTux (SDL2, GLEW)
# and Warzone 2100 (SDL2, its OpenGL backend).
TBDR_PACKAGES="$TBDR_PACKAGES supertux warzone2100"
# The real games of tests/real_games_test.py: SuperTuxKart (core OpenGL), beside SuperTux (OpenGL ES
# through SDL's renderer), Warzone 2100 (Vulkan) and vkd3d-gears.
TBDR_PACKAGES="$TBDR_PACKAGES supertuxkart"
# The HTML pages' browser tests (tests/html_report_test.cpp, tests/html_explorer_test.cpp through
# tools/browser_drive.py, Python's standard library only): headless Chromium loads and drives the pages.
TBDR_PACKAGES="$TBDR_PACKAGES chromium"
# A real single-node Slurm (controller, node daemon, sbatch/squeue, munge authentication) for the
# `slurm_sweep` test of tools/slurm_sweep.sbatch (tests/slurm_test.sh starts its own daemons).
TBDR_PACKAGES="$TBDR_PACKAGES slurmctld slurmd slurm-client munge"
# The man page build/tbdrsim.1, written at build time from the --help texts (man-db: `man -l` in its test).
TBDR_PACKAGES="$TBDR_PACKAGES help2man man-db"
# The Python module tools/python/tbdrsim: its pytest tests (tests/python_module_test.py), and pandas
# for tbdrsim.sweep()'s DataFrame.
TBDR_PACKAGES="$TBDR_PACKAGES python3-pytest python3-pandas"
# traces/schema/*.json checked against the bundled traces and reports (tests/schema_test.py).
TBDR_PACKAGES="$TBDR_PACKAGES python3-jsonschema"
# Only for the sanitizer build: clang and its runtime (ASan, UBSan, libFuzzer) of the same version.
TBDR_SANITIZE_PACKAGES="clang-14 libclang-rt-14-dev"

# tbdr_missing_packages [run|test|sanitize]: run is the simulator's own; test adds the test suite's;
# sanitize adds clang to those.
tbdr_missing_packages() {
  local missing="" packages=$TBDR_RUN_PACKAGES
  [ "${1:-}" != run ] && packages="$packages $TBDR_PACKAGES"
  [ "${1:-}" = sanitize ] && packages="$packages $TBDR_SANITIZE_PACKAGES"
  for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
  done
  echo "$missing"
}

tbdr_install() {
  local missing
  missing=$(tbdr_missing_packages "${1:-}")
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "tbdrsim needs these Debian packages:$missing" >&2
    echo "install them with: sudo apt-get update && sudo apt-get install -y$missing" >&2
    exit 1
  fi
  echo "installing:$missing"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing
}

tbdr_build() {
  local root=$1
  # TBDR_CMAKE_ARGS: extra configure arguments (tools/test: -DTBDR_REQUIRE_EXTERNAL=ON).
  cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release ${TBDR_CMAKE_ARGS:-} >/dev/null
  cmake --build "$root/build" -j2 "${@:2}"
}

# Configures a clang sanitizer build into DIR: -fsanitize=address,undefined (every UB check fatal)
# plus EXTRA_FLAGS, then the extra configure arguments. EGL/GL and Vulkan are left out: the
# `external` tests (refrender, captures, the Chromium test of the HTML report: TBDR_BROWSER_TESTS
# off) are not run, and unbuilt test binaries would show up in ctest as failures.
tbdr_configure_sanitize() {
  local root=$1 dir=$2 extra_flags=$3
  local flags="-fsanitize=address,undefined $extra_flags -fno-sanitize-recover=all -fno-omit-frame-pointer -gline-tables-only"
  cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" -DCMAKE_DISABLE_FIND_PACKAGE_OpenGL=ON -DCMAKE_DISABLE_FIND_PACKAGE_Vulkan=ON \
    -DTBDR_BROWSER_TESTS=OFF "${@:4}" >/dev/null
}
# build-sanitize/: the sanitizers plus fuzzer-no-link coverage, and the libFuzzer targets of
# tests/fuzz (TBDR_FUZZ), for baseline x86-64.
tbdr_build_sanitize() {
  local root=$1
  tbdr_configure_sanitize "$root" "$root/build-sanitize" -fsanitize=fuzzer-no-link -DTBDR_FUZZ=ON -DTBDR_AVX2=OFF
  cmake --build "$root/build-sanitize" -j2 --target tbdrsim tbdr_tests tbdrsim_man fuzz_seeds \
    fuzz_trace_reader fuzz_import_gltf fuzz_import_obj fuzz_sweep_grid fuzz_sweep_part fuzz_preset \
    fuzz_measurements "${@:2}"
}
# The same sanitizers over the AVX2 paths (TBDR_AVX2=ON, what the Release build runs on such a
# machine; build-sanitize is baseline x86-64, so its tests never reach them): build-sanitize-avx2/,
# the test binary and the tbdrsim it runs only (no fuzz targets).
tbdr_build_sanitize_avx2() {
  local root=$1
  tbdr_configure_sanitize "$root" "$root/build-sanitize-avx2" "" -DTBDR_FUZZ=OFF -DTBDR_AVX2=ON
  cmake --build "$root/build-sanitize-avx2" -j2 --target tbdrsim tbdr_tests
}

# The offline trace viewer the `trace_viewer` test opens the simulated schedule in: speedscope (npm,
# MIT; its built page dist/release/index.html reads the Trace Event Format), pinned, installed once
# per user into TBDR_SPEEDSCOPE_HOME (npm's registry is reached once; Debian's npm when none is there).
TBDR_SPEEDSCOPE_VERSION=1.25.0
TBDR_SPEEDSCOPE_HOME="${XDG_CACHE_HOME:-$HOME/.cache}/tbdrsim/speedscope-$TBDR_SPEEDSCOPE_VERSION"
tbdr_install_trace_viewer() {
  [ -f "$TBDR_SPEEDSCOPE_HOME/node_modules/speedscope/dist/release/index.html" ] && return 0
  if ! command -v npm >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm
  fi
  mkdir -p "$TBDR_SPEEDSCOPE_HOME"
  npm install --prefix "$TBDR_SPEEDSCOPE_HOME" --no-audit --no-fund --loglevel=error "speedscope@$TBDR_SPEEDSCOPE_VERSION"
}
