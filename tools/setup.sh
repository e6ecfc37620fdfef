# Shared set-up for tools/run and tools/test (sourced): installs the Debian packages the build
# needs when they are missing, then configures and builds Release into build/.
TBDR_PACKAGES="cmake g++ make pkg-config libeigen3-dev libstb-dev libbenchmark-dev libgtest-dev libcli11-dev nlohmann-json3-dev libtinygltf-dev libtinyobjloader-dev libegl-dev libgl-dev libegl-mesa0 libgl1-mesa-dri glmark2-data assimp-testmodels python3-matplotlib"

tbdr_missing_packages() {
  local missing=""
  for p in $TBDR_PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
  done
  echo "$missing"
}

tbdr_install() {
  local missing
  missing=$(tbdr_missing_packages)
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
  cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$root/build" -j2 "${@:2}"
}
