#!/bin/sh
# run.sh of the bundle tools/convert_bundle makes: converts one capture with the checkout's tools/rdc2trace
# (run from the checkout's root) on the bundled Python, RenderDoc, llvmpipe and lavapipe.
#
#   BUNDLE/run.sh CAPTURE.rdc OUT.json [rdc2trace options]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
# rdc2trace picks lavapipe from /usr/share/vulkan/icd.d/lvp_icd.*.json (Debian's place for it).
mkdir -p /usr/share/vulkan/icd.d
cat >/usr/share/vulkan/icd.d/lvp_icd.x86_64.json <<EOF
{"ICD": {"api_version": "1.1.230", "library_path": "$here/lib/libvulkan_lvp.so"}, "file_format_version": "1.0.0"}
EOF
# No X server: GLX cannot open DISPLAY, so RenderDoc's GL replay uses EGL, which Mesa runs surfaceless;
# a set DISPLAY also keeps rdc2trace from starting its private Xvfb.
export DISPLAY=:9999 EGL_PLATFORM=surfaceless
export __EGL_VENDOR_LIBRARY_FILENAMES="$here/share/glvnd/egl_vendor.d/50_mesa.json"
export LIBGL_DRIVERS_PATH="$here/lib/dri"
exec "$here/bin/python3" tools/rdc2trace "$@"
