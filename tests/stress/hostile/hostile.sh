#!/bin/bash
# Re-checks the classes of hostile input of tools/doc/cli.md "Output files and input limits" (1-5) and the newer commands and
# formats (6: advise, calibrate, diff, compare, the per-draw CSV, presets with base, sweep grids, the Python module) against a built tbdrsim, as a hostile user would:
# usage: hostile.sh path/to/tbdrsim path/to/repository   (root for the tmpfs cases; prints a table, exits 1 on a failure)
set -u
BIN=$(readlink -f "${1:?usage: hostile.sh TBDRSIM REPO}"); REPO=$(readlink -f "${2:?usage: hostile.sh TBDRSIM REPO}")
HERE=$(dirname "$(readlink -f "$0")"); GEN="python3 $HERE/gen_inputs.py"
T=$(mktemp -d /tmp/hostile.XXXXXX); MNT=""
cleanup() { [ -n "$MNT" ] && umount "$MNT" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
ROWS=(); N=0
# Run as root (CI, this machine) every case runs; otherwise those that mknod or mount a tmpfs are left out.
AS_ROOT=0; [ "$(id -u)" = 0 ] && AS_ROOT=1
# Per-case knobs, reset by new_case: EXPECT (new paths allowed), VICTIMS, NEEDLE, MAXS, MAXMB, POST (a check function).
new_case() {  # new_case CLASS NAME RULE: makes $T/cN, cds into it
  N=$((N + 1)); CLASS=$1; NAME=$2; RULE=$3; EXPECT=""; VICTIMS=""; NEEDLE=""; MAXS=60; MAXMB=4096; POST=""; NOTE=""; PLANTED=""
  C=$T/c$N; mkdir -p "$C"; cd "$C" || exit 1
}
snapshot() { find . -mindepth 1 \( -type f -o -type l -o -type p -o -type d \) 2>/dev/null | sort; }
sums() { for v in $VICTIMS; do stat -c '%F' "$v"; sha1sum "$v" 2>/dev/null | cut -c1-40; done; }
# go [--timeout S] CMD...: runs the case's command, then judges it by RULE.
go() {
  local limit=60; [ "$1" = --timeout ] && { limit=$2; shift 2; }
  snapshot > "$T/before"; local vb; vb=$(sums)
  /usr/bin/time -f "%e %M" -o "$T/time" timeout -k 2 "$limit" "$@" > "$T/out" 2> "$T/err" < /dev/null
  RC=$?; judge "$vb"
}
judge() {  # judge VICTIM_SUMS_BEFORE: fills one table row from $T/err, $T/time, the folder and RULE
  local vb=$1 secs mb lines crash=no left verdict=PASS why=""
  read -r secs kb < <(grep -E '^[0-9.]+ [0-9]+$' "$T/time" | tail -1); secs=${secs:-?}; mb=$(( ${kb:-0} / 1024 ))
  lines=$(grep -c '' "$T/err")
  case $RC in 124|137) crash=hang;; 132|134|135|136|139) crash=yes;; esac
  grep -q 'terminated by signal' "$T/time" && crash=yes
  snapshot > "$T/after"
  left=$(comm -13 "$T/before" "$T/after" | while read -r f; do
    keep=0; for e in $EXPECT; do [[ "$f" == ./$e || "$f" == ./$e/* ]] && keep=1; done
    [ -n "$PLANTED" ] && [ -L "$f" ] && keep=1   # the symlinks plant_exec.sh planted are not the tool's
    [ $keep = 0 ] && echo "$f"; done)
  local tmps; tmps=$(find . -name '*.tmp*' ${PLANTED:+! -type l} 2>/dev/null | grep -vxF -f "$T/before" || true)
  left=$(printf '%s\n%s\n' "$left" "$tmps" | grep -v '^$' | sort -u)
  local nleft; nleft=$(printf '%s' "$left" | grep -c '' || true)
  local oneline=no; [ "$lines" = 1 ] && { [ -z "$NEEDLE" ] || grep -qF -- "$NEEDLE" "$T/err"; } && oneline=yes
  case $RULE in
    refuse) [ $RC = 2 ] || why+="exit $RC not 2; "; [ $oneline = yes ] || why+="stderr not one line naming '$NEEDLE'; ";;
    ok) [ $RC = 0 ] || why+="exit $RC not 0; ";;
    ok_or_refuse) [ $RC = 0 ] || { [ $RC = 2 ] && [ $oneline = yes ]; } || why+="exit $RC, not 0 nor a one-line refusal; ";;
    io_error) { [ $RC = 1 ] || [ $RC = 2 ]; } || why+="exit $RC not 1 or 2; "
              [ $oneline = yes ] || why+="stderr not one line naming '$NEEDLE'; ";;
    signal) ;;  # judged by POST
  esac
  [ $crash = no ] || why+="crash/hang ($RC); "
  [ "$nleft" = 0 ] || why+="left: $(echo $left | cut -c1-120); "
  [ "$(sums)" = "$vb" ] || why+="victim changed; "
  awk -v s="$secs" -v m="$MAXS" 'BEGIN{exit !(s+0 > m+0)}' && why+="took ${secs}s > ${MAXS}s; "
  [ "$mb" -gt "$MAXMB" ] && why+="peak ${mb} MiB > ${MAXMB} MiB; "
  [ -n "$POST" ] && { local p; p=$($POST) || why+="$p; "; }
  [ -n "$why" ] && verdict=FAIL
  ROWS+=("$CLASS|$NAME|$RC|$oneline|$crash|$nleft|$secs|${mb}|$verdict|$why|$(head -c 300 "$T/err" | head -1)|$RULE")
  printf '%-2s %-44s exit=%-3s one-line=%-3s crash=%-4s left=%-2s %6ss %5sMiB %s %s\n' \
    "$CLASS" "$NAME" "$RC" "$oneline" "$crash" "$nleft" "$secs" "$mb" "$verdict" "$why" >&2
  [ $verdict = FAIL ] && { echo "   stderr: $(head -c 400 "$T/err")" >&2; }
  cd "$T" || exit 1
}

# go_signal SIG: a run writing 40 images gets SIG once its first staged files exist (the write phase).
go_signal() {
  snapshot > "$T/before"; local start; start=$(date +%s.%N)
  "$BIN" run "$T/many.json" --out o --json r.json --quiet --threads 1 > "$T/out" 2> "$T/err" < /dev/null & local pid=$!
  local i; for i in $(seq 1 1200); do
    [ "$(ls -a o 2>/dev/null | grep -c 'tmp-tbdrsim')" -ge 3 ] && break; sleep 0.02; done
  STAGED_AT_SIGNAL=$(ls -a o 2>/dev/null | grep -c 'tmp-tbdrsim'); kill -s "$1" $pid; wait $pid; RC=$?
  printf '%.2f 0\n' "$(echo "$(date +%s.%N) - $start" | bc)" > "$T/time"; [ "$1" = KILL ] || judge ""
}
signal_post() {  # the run exited 128+SIG and left neither staged files nor the folder it created
  [ "$RC" = "$EXPECT_RC" ] || { echo "exit $RC, expected $EXPECT_RC (staged at signal: $STAGED_AT_SIGNAL)"; return 1; }
  [ "$STAGED_AT_SIGNAL" -ge 1 ] || { echo "signal landed outside the write phase"; return 1; }
}
stale_post() {  # this tool's pattern of a gone process removed; everything else kept
  local bad=""
  for f in o/.r.json.tmp-tbdrsim-999999-0123456789abcdef o/.f0_p00_forward_att0_color.png.tmp-tbdrsim-999998-00000000deadbeef; do
    [ -e "$f" ] && bad+="stale $f kept; "; done
  for f in o/.r.json.tmp-tbdrsim-1-0123456789abcdef o/.r.json.tmp-999999 o/notes.tmp o/.x.tmp-tbdrsim-999997-link; do
    [ -e "$f" ] || [ -L "$f" ] || bad+="foreign $f removed; "; done
  [ -z "$bad" ] || { echo "$bad"; return 1; }
}
fifo_post() { [ -p "$FIFO" ] || { echo "$FIFO is no longer a FIFO"; return 1; }; }
chardev_post() { [ -c "$DEV" ] || { echo "$DEV is no longer a character device"; return 1; }; }
absent_post() { [ ! -e "$ABSENT" ] || { echo "$ABSENT was created"; return 1; }; }
same_post() { cmp -s "$SAME_A" "$SAME_B" || { echo "$SAME_A differs from $SAME_B"; return 1; }; }
mount_small() { mkdir -p D; mount -t tmpfs -o size=256k tmpfs D && MNT=$PWD/D; [ -n "${1:-}" ] && dd if=/dev/zero of=D/filler bs=1k count="$1" status=none 2>/dev/null; true; }
unmount_small() { [ -n "$MNT" ] && umount "$MNT"; MNT=""; }

# ---- shared inputs --------------------------------------------------------------------------------
$GEN gltf_ok "$T/ok.gltf"; python3 "$HERE/gen_many_images.py" 40 512 "$T/many.json"
cp "$REPO/traces/features/textured.json" "$REPO/traces/features/uv_test.png" "$T/"
cp -r "$REPO/traces/default" "$T/default"
python3 -c "import struct;open('$T/tri.bin','wb').write(struct.pack('<9f',0,0,0,1,0,0,0,1,0))"
$GEN sidecar_trace "$T/sc.json" tri.bin
python3 -c "
import random; r = random.Random(1); f = open('$T/big.obj', 'w')
for i in range(3000): f.write('v %f %f %f\\n' % (r.random(), r.random(), r.random()))
for i in range(1000): f.write('f %d %d %d\\n' % (3 * i + 1, 3 * i + 2, 3 * i + 3))"
echo "original victim" > "$T/victim.txt"
RUN="$BIN run --quiet --threads 1"
SWEEP_ARGS="--vary tile=16x16,32x32 --vary dram.bytes_per_cycle=8,16 -j 1 --quiet"
sweep_setup() {  # sweep_setup NAME...: the sweeps s (whole), s1 and s2 (shards), other (another preset) in this folder
  cp "$T/textured.json" t.json; cp "$T/uv_test.png" .; local d
  for d in "$@"; do case $d in
    s) timeout 60 $BIN sweep t.json $SWEEP_ARGS --out s > /dev/null 2>&1; cp s/results.csv pristine.csv;;
    s1) timeout 60 $BIN sweep t.json $SWEEP_ARGS --shard 1/2 --out s1 > /dev/null 2>&1;;
    s2) timeout 60 $BIN sweep t.json $SWEEP_ARGS --shard 2/2 --out s2 > /dev/null 2>&1;;
    other) timeout 60 $BIN sweep t.json --preset mali-g710 $SWEEP_ARGS --out other > /dev/null 2>&1;;
  esac; done
}
part() { ls "$1"/parts/*.json | sed -n "${2}p"; }

# ---- class 1: output staging ----------------------------------------------------------------------
victim() { cp "$T/victim.txt" victim; VICTIMS="victim"; }
new_case 1 "symlink --json -> victim" refuse; victim; ln -s victim r.json; NEEDLE=r.json
go $RUN --no-images --json r.json
new_case 1 "symlink --csv -> victim" refuse; victim; ln -s victim r.csv; NEEDLE=r.csv
go $RUN --no-images --csv r.csv
new_case 1 "symlink --html -> victim" refuse; victim; ln -s victim r.html; NEEDLE=r.html
go $RUN --no-images --html r.html
new_case 1 "symlink image in --out -> victim" refuse; victim; mkdir o; ln -s ../victim o/f0_p00_forward_att0_color.png
NEEDLE=f0_p00_forward_att0_color.png; go $RUN --out o
new_case 1 "dangling symlink --json -> new file" refuse; ln -s "$C/created_by_run" r.json; NEEDLE=r.json
ABSENT="$C/created_by_run"; POST=absent_post; go $RUN --no-images --json r.json
new_case 1 "FIFO as --json (10 s)" refuse; mkfifo f.json; FIFO=f.json; POST=fifo_post; NEEDLE=f.json
go --timeout 10 $RUN --no-images --json f.json
if [ "$AS_ROOT" = 1 ]; then  # mknod needs root
new_case 1 "char device (mknod 1,3) as --json" refuse; mknod nul c 1 3; DEV=nul; POST=chardev_post; NEEDLE=nul
go $RUN --no-images --json nul
NUL_OK=${ROWS[-1]}
new_case 1 "/dev/null as --json" refuse; DEV=/dev/null; POST=chardev_post; NEEDLE=/dev/null
if [[ "$NUL_OK" == *"|PASS|"* ]]; then go $RUN --no-images --json /dev/null
  [ -c /dev/null ] || { rm -f /dev/null; mknod -m 666 /dev/null c 1 3; }   # never leave the machine without it
else echo "skipped: the mknod copy was not refused" > "$T/err"; RC=99; echo "0 0" > "$T/time"; judge ""; fi
fi
new_case 1 "run t.json --json t.json" refuse; cp "$T/sc.json" t.json; cp "$T/tri.bin" .; VICTIMS="t.json"; NEEDLE=t.json
go $RUN t.json --no-images --json t.json
new_case 1 "--json = hard link of the trace" refuse; cp "$T/sc.json" t.json; cp "$T/tri.bin" .; ln t.json h.json
VICTIMS="t.json"; NEEDLE=h.json; go $RUN t.json --no-images --json h.json
new_case 1 "--json = the trace's sidecar" refuse; cp "$T/sc.json" t.json; cp "$T/tri.bin" .; VICTIMS="tri.bin"; NEEDLE=tri.bin
go $RUN t.json --no-images --json tri.bin
new_case 1 "--csv = the trace's texture" refuse; cp "$T/textured.json" t.json; cp "$T/uv_test.png" .; VICTIMS="uv_test.png"
NEEDLE=uv_test.png; go $RUN t.json --no-images --csv uv_test.png
new_case 1 "--json = the preset file" refuse; cp "$REPO/models/presets/reference.json" p.json; VICTIMS=p.json; NEEDLE=p.json
go $RUN --preset p.json --no-images --json p.json
new_case 1 "--out is a regular file" refuse; victim; NEEDLE=victim; go $RUN --out victim
new_case 1 "stale staged files: ours removed, others kept" ok; mkdir o
for f in .r.json.tmp-tbdrsim-999999-0123456789abcdef .f0_p00_forward_att0_color.png.tmp-tbdrsim-999998-00000000deadbeef \
         .r.json.tmp-tbdrsim-1-0123456789abcdef .r.json.tmp-999999 notes.tmp; do echo stale > "o/$f"; done
ln -s ../victim o/.x.tmp-tbdrsim-999997-link; victim
EXPECT="o/r.json o/f0_p00_forward_att0_color.png"; POST=stale_post; go $RUN --out o --json o/r.json
# the kept foreign files are not "left behind" by this run: judge counts only new paths
for sig in HUP INT QUIT PIPE TERM; do
  new_case 1 "SIG$sig during the image writes" signal; POST=signal_post
  EXPECT_RC=$((128 + $(kill -l $sig))); go_signal $sig
done
new_case 1 "kill -9 in the writes; next run removes staged" ok
go_signal KILL; echo "   (kill -9 at $STAGED_AT_SIGNAL staged files left $(ls -a o 2>/dev/null | grep -c tmp-tbdrsim) staged files)" >&2
EXPECT="o r.json"; go $RUN "$T/many.json" --out o --json r.json
if [ "$AS_ROOT" = 1 ]; then  # a tmpfs mount needs root
new_case 1 "full disk: run images + --json" io_error; mount_small; NEEDLE="$C/D"
go $RUN --out "$C/D/o" --json "$C/D/r.json"; unmount_small
new_case 1 "full disk: run --json (20 KB, 8 KB free)" io_error; mount_small 244; NEEDLE="$C/D"
go $RUN --no-images --json "$C/D/r.json"; unmount_small
new_case 1 "full disk: import -o" io_error; mount_small 248; NEEDLE="$C/D"
go $BIN import "$T/big.obj" -o "$C/D/imp/t.json"; unmount_small
# A sweep folder (sweep.json, finished parts) is resumable state, kept on failure as after kill -9; staged files are not.
new_case 1 "full disk: sweep --out" io_error; mount_small 240; NEEDLE="$C/D"; EXPECT="D/s"; cp "$T/textured.json" t.json; cp "$T/uv_test.png" .
go $BIN sweep t.json $SWEEP_ARGS --out "$C/D/s"; unmount_small
fi
PLANT="$HERE/plant_exec.sh"
new_case 1 "sweep resume: symlinks at its staged names" ok_or_refuse; sweep_setup s; victim; rm s/parts/000002.json
EXPECT=s; PLANTED=1; go "$PLANT" s "$C/victim" $BIN sweep t.json $SWEEP_ARGS --out s
new_case 1 "sweep-merge again: symlinks at staged names" ok_or_refuse; sweep_setup s1 s2; victim
timeout 60 $BIN sweep-merge s1 s2 --out m > /dev/null 2>&1; EXPECT=m; PLANTED=1; go "$PLANT" m "$C/victim" $BIN sweep-merge s1 s2 --out m
new_case 1 "sweep resume: results.csv symlink -> victim" ok_or_refuse; sweep_setup s; victim; rm s/parts/000002.json
ln -sf ../victim s/results.csv; EXPECT=s; go $BIN sweep t.json $SWEEP_ARGS --out s
new_case 1 "sweep resume: stale staged part of a gone PID" ok; sweep_setup s; echo x > s/parts/.000002.json.tmp-tbdrsim-999999-0123456789abcdef
EXPECT=s; ABSENT=s/parts/.000002.json.tmp-tbdrsim-999999-0123456789abcdef; POST=absent_post; go $BIN sweep t.json $SWEEP_ARGS --out s

# ---- class 2: importers ---------------------------------------------------------------------------
imp() { go $BIN import "$1" -o out/t.json "${@:2}"; }
gcase() {  # gcase NAME KIND [ARGS]: a refused glTF import naming s.gltf
  new_case 2 "$1" refuse; $GEN "$2" s.gltf "${@:3}"; NEEDLE=s.gltf; imp s.gltf; }
gcase "glTF accessor byteOffset 2^64-4" gltf_accessor_offset
gcase "glTF bufferView byteOffset 2^64-8" gltf_view_offset
gcase "glTF bufferView byteLength 2^64-4" gltf_view_length
gcase "glTF byteStride 252 x count 2^58" gltf_stride
gcase "glTF accessor count 2^60" gltf_count
gcase "glTF node matrix of 1e308" gltf_matrix
gcase "glTF translation 1e39 (inf as float)" gltf_translation_float_inf
gcase "glTF nested 100,000 deep" gltf_nested 100000
new_case 2 ".glb JSON chunk nested 100,000 deep" refuse; $GEN glb_nested s.glb 100000; NEEDLE=s.glb; imp s.glb
gcase "glTF node graph with 2^40 paths" gltf_exponential 40
secret() { mkdir -p scene; printf 'SECRETSECRETSECRETSECRETSECRETSECRET' > secret.bin; cp secret.bin "$T/secret_abs.bin"; }
new_case 2 "glTF buffer uri ../secret.bin" refuse; secret; $GEN gltf_uri scene/s.gltf ../secret.bin; NEEDLE=s.gltf
imp scene/s.gltf
new_case 2 "glTF buffer uri absolute path" refuse; secret; $GEN gltf_uri scene/s.gltf "$T/secret_abs.bin"; NEEDLE=s.gltf
imp scene/s.gltf
new_case 2 "glTF buffer uri file:// absolute" refuse; secret; $GEN gltf_uri scene/s.gltf "file://$T/secret_abs.bin"; NEEDLE=s.gltf
imp scene/s.gltf
new_case 2 "glTF buffer: symlink leading out" refuse; secret; ln -s ../secret.bin scene/b.bin; $GEN gltf_uri scene/s.gltf b.bin
NEEDLE=s.gltf; imp scene/s.gltf
new_case 2 "glTF buffer uri is a FIFO (10 s)" refuse; mkdir scene; mkfifo scene/b.bin; $GEN gltf_uri scene/s.gltf b.bin
NEEDLE=b.bin; go --timeout 10 $BIN import scene/s.gltf -o out/t.json
new_case 2 "glTF image uri ../x.png" refuse; secret; cp "$T/uv_test.png" x.png; $GEN gltf_image_uri scene/s.gltf ../x.png
NEEDLE=s.gltf; imp scene/s.gltf
new_case 2 "glTF image uri absolute path" refuse; secret; $GEN gltf_image_uri scene/s.gltf "$T/uv_test.png"; NEEDLE=s.gltf
imp scene/s.gltf
new_case 2 "glTF image uri inside the folder (legit)" ok; mkdir scene; cp "$T/uv_test.png" scene/x.png
$GEN gltf_image_uri scene/s.gltf x.png; EXPECT=out; imp scene/s.gltf
new_case 2 "OBJ face index 2^32+2" refuse; $GEN obj_index s.obj 4294967298; NEEDLE=s.obj; imp s.obj
new_case 2 "OBJ face index -(2^32)" refuse; $GEN obj_index s.obj -4294967296; NEEDLE=s.obj; imp s.obj
new_case 2 "OBJ face index 2147483648" refuse; $GEN obj_index s.obj 2147483648; NEEDLE=s.obj; imp s.obj
new_case 2 "OBJ mtllib ../m.mtl" refuse; mkdir scene; $GEN mtl_map m.mtl x.png; $GEN obj_mtl scene/s.obj ../m.mtl
NEEDLE=s.obj; imp scene/s.obj
new_case 2 "MTL map_Kd absolute path" refuse; mkdir scene; $GEN mtl_map scene/m.mtl "$T/uv_test.png"; $GEN obj_mtl scene/s.obj m.mtl
NEEDLE="$T/uv_test.png"; imp scene/s.obj
new_case 2 "MTL map_Kd ../x.png" refuse; mkdir scene; cp "$T/uv_test.png" x.png; $GEN mtl_map scene/m.mtl ../x.png
$GEN obj_mtl scene/s.obj m.mtl; NEEDLE=../x.png; imp scene/s.obj
new_case 2 "MTL map_Kd inside the folder (legit)" ok; mkdir scene; cp "$T/uv_test.png" scene/x.png
$GEN mtl_map scene/m.mtl x.png; $GEN obj_mtl scene/s.obj m.mtl; EXPECT=out; imp scene/s.obj
new_case 2 "OBJ 100,000-corner polygon (< 10 s)" refuse; $GEN obj_polygon s.obj 100000; NEEDLE=s.obj; MAXS=10; imp s.obj
new_case 2 "OBJ 1,000-corner polygon (legit, < 10 s)" ok; $GEN obj_polygon s.obj 1000; EXPECT=out; MAXS=10; imp s.obj
new_case 2 "glTF legitimate (control)" ok; cp "$T/ok.gltf" s.gltf; EXPECT=out; imp s.gltf
new_case 2 "glTF legit, then run its trace" ok; cp "$T/ok.gltf" s.gltf; EXPECT="out o"
timeout 60 $BIN import s.gltf -o out/t.json > /dev/null 2>&1; go $RUN out/t.json --out o

# ---- class 3: sweeps ------------------------------------------------------------------------------
edit_part() { python3 -c "
import json, sys; lines = open(sys.argv[1]).read().splitlines(); d = json.loads(lines[0]); d['rows'][0][-1] = 12345
lines[0] = json.dumps(d, separators=(',', ':')); open(sys.argv[1], 'w').write(''.join(l + '\\n' for l in lines))" "$1"; }
nest_part() { python3 -c "import sys; open(sys.argv[1], 'w').write('[' * 100000 + ']' * 100000)" "$1"; }
resume() {  # resume NAME DAMAGE...: damages s, resumes, expects results.csv equal to the undamaged run's
  new_case 3 "resume: $1" ok; sweep_setup s other; "${@:2}"; EXPECT=s; SAME_A=s/results.csv; SAME_B=pristine.csv
  POST=same_post; go $BIN sweep t.json $SWEEP_ARGS --out s; }
resume "edited part (valid JSON, one number)" edit_part s/parts/000002.json
resume "truncated part" truncate -s 100 s/parts/000002.json
resume "empty part" truncate -s 0 s/parts/000002.json
resume "foreign part (other preset's)" cp other/parts/000002.json s/parts/000002.json
resume "part copied to another index" cp s/parts/000000.json s/parts/000002.json
resume "part nested 100,000 deep" nest_part s/parts/000002.json
link_part() { mv s/parts/000002.json victim; ln -s ../../victim s/parts/000002.json; VICTIMS=victim; }
resume "symlinked part (valid target outside)" link_part
resume "results.csv deleted" rm s/results.csv
new_case 3 "resume: copied sweep.json over another sweep" ok; sweep_setup s other; cp s/sweep.json other/sweep.json
EXPECT=other; SAME_A=other/results.csv; SAME_B=pristine.csv; POST=same_post; go $BIN sweep t.json $SWEEP_ARGS --out other
new_case 3 "resume: sweep.json is []" refuse; sweep_setup s; echo '[]' > s/sweep.json; NEEDLE=sweep.json
go $BIN sweep t.json $SWEEP_ARGS --out s
new_case 3 "resume: sweep.json nested 100,000 deep" refuse; sweep_setup s; nest_part s/sweep.json; NEEDLE=sweep.json
go $BIN sweep t.json $SWEEP_ARGS --out s
new_case 3 "resume after the texture changed" ok; sweep_setup s; cp "$T/default/checker.png" uv_test.png
mkdir fresh; cp t.json uv_test.png fresh/; ( cd fresh && timeout 60 $BIN sweep t.json $SWEEP_ARGS --out s > /dev/null 2>&1 )
EXPECT=s; SAME_A=s/results.csv; SAME_B=fresh/s/results.csv; POST=same_post; go $BIN sweep t.json $SWEEP_ARGS --out s
sc_shard() { timeout 60 $BIN sweep sc.json $SWEEP_ARGS --shard "$1" --out "$2" > /dev/null 2>&1; }
merge() {  # merge NAME RULE NEEDLE DAMAGE...: shards s1, s2 of one sweep, damaged, merged into m
  new_case 3 "merge: $1" "$2"; sweep_setup s s1 s2 other; "${@:4}"; NEEDLE=$3
  [ "$2" = ok ] && { EXPECT=m; SAME_A=m/results.csv; SAME_B=pristine.csv; POST=same_post; }
  go $BIN sweep-merge s1 s2 --out m; }
merge "two shards (legit)" ok ""  true
merge "edited part" refuse 000002.json edit_part s2/parts/000002.json
merge "empty part" refuse 000002.json truncate -s 0 s2/parts/000002.json
merge "foreign part (other preset's)" refuse 000002.json cp other/parts/000002.json s2/parts/000002.json
merge "part nested 100,000 deep" refuse 000002.json nest_part s2/parts/000002.json
merge_link() { mv s2/parts/000002.json victim; ln -s ../../victim s2/parts/000002.json; VICTIMS=victim; }
merge "symlinked part" refuse 000002.json merge_link
merge "missing part" refuse "configuration 2" rm s2/parts/000002.json
merge "shard sweep.json is []" refuse sweep.json eval "echo '[]' > s2/sweep.json"
merge "shard sweep.json nested deep" refuse sweep.json nest_part s2/sweep.json
merge "one shard given twice" refuse "" eval 'rm -r s2; cp -a s1 s2'
merge_texture() { rm -r s2; cp "$T/default/checker.png" uv_test.png; timeout 60 $BIN sweep t.json $SWEEP_ARGS --shard 2/2 --out s2 > /dev/null 2>&1; }
merge "texture changed between shards" refuse uv_test.png merge_texture
new_case 3 "merge: sidecar changed between shards" refuse; cp "$T/sc.json" "$T/tri.bin" .; sc_shard 1/2 s1
python3 -c "import struct;open('tri.bin','wb').write(struct.pack('<9f',0,0,0,1,0,0,0,0.5,0))"; sc_shard 2/2 s2
NEEDLE=tri.bin; go $BIN sweep-merge s1 s2 --out m

# ---- class 4: limits ------------------------------------------------------------------------------
tex_case() {  # tex_case W H: a trace whose texture PNG declares W x H pixels
  new_case 4 "PNG texture declaring $1 x $2" refuse; $GEN png_header big.png "$1" "$2"
  $GEN texture_trace t.json big.png "$T/textured.json"; NEEDLE=big.png; MAXMB=1024; go $RUN t.json --no-images; }
tex_case 32768 32768
tex_case 16384 16384
tex_case 8192 2049
new_case 4 "diff: PNG declaring 32768 x 32768" refuse; $GEN png_header big.png 32768 32768; cp "$T/uv_test.png" a.png
NEEDLE=big.png; MAXMB=1024; go $BIN diff a.png big.png
new_case 4 "diff: PNG declaring 30000 x 8000" refuse; $GEN png_header big.png 30000 8000; cp "$T/uv_test.png" a.png
NEEDLE=big.png; MAXMB=1024; go $BIN diff big.png a.png
new_case 4 "--preset /dev/zero" refuse; NEEDLE=/dev/zero; MAXMB=256; MAXS=10; go $RUN --preset /dev/zero --no-images
new_case 4 "run /dev/urandom" refuse; NEEDLE=/dev/urandom; MAXMB=256; MAXS=10; go $RUN /dev/urandom --no-images
new_case 4 "sweep --grid /dev/zero" refuse; NEEDLE=/dev/zero; MAXMB=256; MAXS=10; go $BIN sweep --grid /dev/zero --quiet --out s
new_case 4 "advise --preset /dev/zero" refuse; NEEDLE=/dev/zero; MAXMB=256; MAXS=10; go $BIN advise --preset /dev/zero
fifo_case() {  # fifo_case WHAT NAME CMD...: a FIFO named NAME given as WHAT, within 10 s
  new_case 4 "FIFO as $1 (10 s)" refuse; mkfifo "$2"; FIFO=$2; POST=fifo_post; NEEDLE=$2; go --timeout 10 "${@:3}"; }
fifo_case preset p.json $RUN --preset p.json --no-images
fifo_case trace t.json $RUN t.json --no-images
fifo_case "sweep grid" g.csv $BIN sweep --grid g.csv --quiet --out s
new_case 4 "FIFO as sidecar (10 s)" refuse; cp "$T/sc.json" t.json; mkfifo tri.bin; FIFO=tri.bin; POST=fifo_post; NEEDLE=tri.bin
go --timeout 10 $RUN t.json --no-images
new_case 4 "FIFO as texture (10 s)" refuse; cp "$T/textured.json" t.json; mkfifo uv_test.png; FIFO=uv_test.png; POST=fifo_post
NEEDLE=uv_test.png; go --timeout 10 $RUN t.json --no-images
fifo_case "diff PNG" b.png $BIN diff "$T/uv_test.png" b.png
new_case 4 "texture.l2_bytes 16 GiB x cores.count 1024" ok_or_refuse; MAXMB=3072; MAXS=60; EXPECT=r.json
go $RUN --preset mali-g710 --set texture.l2_bytes=17179869184 --set cores.count=1024 --no-images --json r.json
new_case 4 "texture.l2_bytes 1 TiB (over the budget)" refuse; NEEDLE=texture.l2_bytes; MAXMB=512
go $RUN --preset mali-g710 --set texture.l2_bytes=1099511627776 --no-images --json r.json
new_case 4 "grid of 1,000,001 rows" refuse; $GEN grid_rows g.csv 1000001; NEEDLE=g.csv; MAXMB=1024; MAXS=30
go $BIN sweep --grid g.csv --quiet --out s
new_case 4 "--vary product of 10,000,000" refuse; MAXMB=1024; MAXS=30; NEEDLE=configurations
V() { seq -s, "$1" "$2"; }
go $BIN sweep --vary dram.bytes_per_cycle=$(V 1 100) --vary cores.count=$(V 1 100) --vary param_buffer.capacity=$(V 1000 1999) --quiet --out s
new_case 4 "--vary product of 10^12 (overflow-ish)" refuse; MAXMB=1024; MAXS=30; NEEDLE=configurations
go $BIN sweep --vary dram.bytes_per_cycle=$(V 1 1000) --vary cores.count=$(V 1 1000) --vary param_buffer.capacity=$(V 1000 1999) --vary tiling.width=$(V 1 1000) --quiet --out s
new_case 4 "param_buffer.capacity=1 on the default trace" ok_or_refuse; EXPECT=r.json; MAXS=60; MAXMB=2048
go $RUN --set param_buffer=fixed --set param_buffer.capacity=1 --no-images --json r.json
new_case 4 "run --threads 100000" refuse; NEEDLE=threads; go $RUN --threads 100000 --no-images
new_case 4 "run --threads 1025" refuse; NEEDLE=threads; go $BIN run --threads 1025 --no-images --quiet
new_case 4 "sweep -j 100000" refuse; cp "$T/textured.json" t.json; cp "$T/uv_test.png" .; NEEDLE=-j
go $BIN sweep t.json --vary tile=16x16,32x32 -j 100000 --quiet --out s
new_case 4 "validate --threads 100000" refuse; NEEDLE=threads; go $BIN validate --threads 100000
new_case 4 "--max-memory 1K" refuse; NEEDLE="memory budget"; go $RUN --no-images --max-memory 1K

# ---- class 5: feedback loops ----------------------------------------------------------------------
new_case 5 "draw samples its own attachment (same subpass)" refuse; $GEN feedback t.json color same; NEEDLE="feedback loop"
go $RUN t.json
new_case 5 "draw samples it in a later subpass" refuse; $GEN feedback t.json color later; NEEDLE="feedback loop"
go $RUN t.json
new_case 5 "--imr: draw samples its own attachment" refuse; $GEN feedback t.json color same; NEEDLE="feedback loop"
go $RUN t.json --imr
new_case 5 "pass 2 samples pass 1's output: TBDR == IMR" ok; $GEN feedback t.json color nextpass; EXPECT="o i"
timeout 60 $RUN t.json --imr --out i > /dev/null 2>&1
SAME_A=o/f0_p01_second_att0_src.png; SAME_B=i/f0_p01_second_att0_src.png; POST=same_post; go $RUN t.json --out o

# ---- class 6: the newer commands and formats ---------------------------------------------------------
tiny() { cp "$T/sc.json" t.json; cp "$T/tri.bin" .; }
new_case 6 "advise: 200 passes, a finding each (< 30 s)" refuse; $GEN passes t.json 200 1; NEEDLE="advise would price"; MAXS=30
go $BIN advise t.json --threads 1
for fps in 1e308 inf nan 0; do
  new_case 6 "advise --fps $fps" refuse; tiny; NEEDLE=--fps; go $BIN advise t.json --threads 1 --fps $fps; done
new_case 6 "advise --apply an id no finding has" refuse; tiny; NEEDLE=no-such; go $BIN advise t.json --threads 1 --apply no-such -o e.json
new_case 6 "advise --json = the trace" refuse; tiny; VICTIMS=t.json; NEEDLE=t.json; go $BIN advise t.json --threads 1 --json t.json
new_case 6 "advise --json - > /dev/full" io_error; tiny; NEEDLE=stdout; go sh -c "$BIN advise t.json --threads 1 --json - > /dev/full"
new_case 6 "4,096 passes x 65,536 instances (< 30 s)" refuse; $GEN passes t.json 4096 65536; NEEDLE=vertices; MAXS=30
go $RUN t.json --no-images
new_case 6 "20,000 passes (< 30 s)" refuse; $GEN passes t.json 20000 1; NEEDLE=passes; MAXS=30; go $RUN t.json --no-images
new_case 6 "3 frames repeating 6,000 passes" refuse; $GEN passes t.json 6000 1 3; NEEDLE=/frames/2; MAXS=30; go $RUN t.json --no-images
new_case 6 "swapchain 1000000000" refuse; tiny; $GEN swapchain t.json 1000000000 "$T/sc.json"; NEEDLE=swapchain; MAXMB=512
go $RUN t.json --no-images
new_case 6 "preset base chain 10,000 deep" refuse; $GEN preset_chain pc 10000; NEEDLE="#/base"; go $RUN --preset pc/p10000.json --no-images
new_case 6 "preset base cycle" refuse; $GEN preset_base a.json b.json; $GEN preset_base b.json a.json; NEEDLE=cycle
go $RUN --preset a.json --no-images
new_case 6 "preset base /dev/zero" refuse; $GEN preset_base p.json /dev/zero; NEEDLE=/dev/zero; MAXS=10; go $RUN --preset p.json --no-images
new_case 6 "preset base is a FIFO (10 s)" refuse; mkfifo b.json; $GEN preset_base p.json b.json; FIFO=b.json; POST=fifo_post
NEEDLE=b.json; go --timeout 10 $RUN --preset p.json --no-images
CAL="--preset reference --params dram.bytes_per_cycle --max-evaluations 2 --threads 1 -o fit.json"
calcase() {  # calcase NAME NEEDLE HEADER ROW [COUNT [ROW...]]: calibrate refuses the CSV naming NEEDLE, writes nothing
  new_case 6 "calibrate: $1" refuse; tiny; $GEN measurements m.csv "$3" "$4" "${5:-1}" "${@:6}"; NEEDLE=$2; MAXS=30; MAXMB=1024
  go $BIN calibrate m.csv $CAL; }
calcase "column given twice" "appears twice" "traces,read_bytes,read_bytes" "t.json,1,2"
calcase "negative byte count" "never negative" "traces,read_bytes" "t.json,-5"
calcase "NaN measurement" "m.csv:2, column read_bytes" "traces,read_bytes" "t.json,nan"
calcase "1,000,000 identical rows (< 30 s)" "more than 100000 rows" "traces,tiles" "t.json,1" 1000000
calcase "0/0 ratio fitted" "is inf" "traces,figure,combine,measured,tolerance" "t.json;t.json,te_blocks_killed,ratio,1,1" 1 \
  "t.json,tiles,value,1,1"
new_case 6 "calibrate -o = the measurements" refuse; tiny; $GEN measurements m.csv "traces,tiles" "t.json,1"; VICTIMS=m.csv
NEEDLE=m.csv; go $BIN calibrate m.csv --preset reference --params dram.bytes_per_cycle --max-evaluations 2 --threads 1 -o m.csv
new_case 6 "--draws-csv and --json: one file" refuse; tiny; NEEDLE=d.csv; go $RUN t.json --no-images --draws-csv d.csv --json d.csv
new_case 6 "--draws-csv d.csv, --csv sub/../d.csv" refuse; tiny; mkdir sub; NEEDLE=d.csv
go $RUN t.json --no-images --draws-csv d.csv --csv sub/../d.csv
new_case 6 "--draws-csv symlink -> victim" refuse; tiny; victim; ln -s victim d.csv; NEEDLE=d.csv; go $RUN t.json --no-images --draws-csv d.csv
new_case 6 "--csv - > /dev/full" io_error; tiny; NEEDLE=stdout; go sh -c "$RUN t.json --no-images --csv - > /dev/full"
new_case 6 "diff: truncated PNG" refuse; head -c 100 "$T/uv_test.png" > b.png; NEEDLE=b.png; go $BIN diff "$T/uv_test.png" b.png
new_case 6 "diff: a folder as image" refuse; mkdir b.png; NEEDLE=b.png; go $BIN diff "$T/uv_test.png" b.png
new_case 6 "grid: a column given twice" refuse; printf 'tiling.width,tiling.width\n16,32\n' > g.csv; NEEDLE=g.csv; tiny
go $BIN sweep t.json --grid g.csv --quiet --out s
new_case 6 "grid: JSON of 1,000,001 rows" refuse; $GEN grid_json_rows g.json 1000001; NEEDLE=g.json; MAXMB=1024; MAXS=30; tiny
go $BIN sweep t.json --grid g.json --quiet --out s
# 5,000 rows: about 75 MiB when each configuration kept its resolved parameter tree, 10 MiB now.
new_case 6 "grid: 5,000 rows resolved (< 40 MiB)" refuse; $GEN grid_rows g.csv 5000; NEEDLE=absent.json; MAXMB=40; MAXS=60
go $BIN sweep absent.json --grid g.csv --quiet -j 1 --out s
new_case 6 "sweep parts/ symlink -> another folder" refuse; sweep_setup s; mkdir elsewhere; rm -r s/parts; ln -s ../elsewhere s/parts
EXPECT=s; NEEDLE=parts; go $BIN sweep t.json $SWEEP_ARGS --out s
# A pipe whose reader is gone before tbdrsim starts (`| true` races with a small report): exit 1 with
# one line, or death by SIGPIPE (141) as a pipe expects (tools/doc/cli.md).
pipe_post() { { [ "$RC" = 1 ] || [ "$RC" = 141 ]; } && [ "$(grep -c '' "$T/err")" -le 1 ] ||
  { echo "exit $RC with $(grep -c '' "$T/err") stderr lines, expected 1 or 141 and at most one line"; return 1; }; }
CLOSED_PIPE="import os, subprocess, sys
r, w = os.pipe(); os.close(r); status = subprocess.call(sys.argv[1:], stdout=w)
sys.exit(128 - status if status < 0 else status)"  # killed by signal N: 128 + N, as a shell says
new_case 6 "run into a pipe whose reader is gone" signal; tiny; POST=pipe_post
go python3 -c "$CLOSED_PIPE" $BIN run t.json --threads 1 --no-images
new_case 6 "OBJ: map_Kd names a missing file" refuse; $GEN obj_mtl s.obj m.mtl; $GEN mtl_map m.mtl none.png; NEEDLE='m.mtl: material "m": map_Kd'
go $RUN s.obj --no-images
reports() { tiny; timeout 60 $RUN t.json --no-images --json a.json > /dev/null 2>&1
  timeout 60 $RUN t.json --no-images --preset mali-g710 --json b.json > /dev/null 2>&1; }
new_case 6 "compare --html = report B" refuse; reports; VICTIMS=b.json; NEEDLE=b.json; go $BIN compare a.json b.json --html b.json
new_case 6 "compare --json and --html: one file" refuse; reports; NEEDLE=x; go $BIN compare a.json b.json --json x --html x
new_case 6 "compare: report B is a FIFO (10 s)" refuse; reports; mkfifo f.json; FIFO=f.json; POST=fifo_post; NEEDLE=f.json
go --timeout 10 $BIN compare a.json f.json
new_case 6 "compare: report B is a folder" refuse; reports; mkdir d.json; NEEDLE=d.json; go $BIN compare a.json d.json
new_case 6 "compare: a key given twice" refuse; reports; sed -i '0,/{/s//{"preset": "x", /' b.json; NEEDLE=b.json
go $BIN compare a.json b.json
new_case 6 "compare: truncated report" refuse; reports; head -c 300 b.json > c.json; NEEDLE=c.json; go $BIN compare a.json c.json
new_case 6 "compare > /dev/full" io_error; reports; NEEDLE=stdout; go sh -c "$BIN compare a.json b.json > /dev/full"
new_case 6 "compare into a pipe whose reader is gone" signal; reports; POST=pipe_post
go python3 -c "$CLOSED_PIPE" $BIN compare a.json b.json
# The Python module raises TbdrsimError with tbdrsim's status and one-line message (printed here as a script would).
PYMOD="import json, sys, tbdrsim
try: getattr(tbdrsim, sys.argv[1])(*json.loads(sys.argv[2]))
except tbdrsim.TbdrsimError as e: sys.stderr.write(e.message + chr(10)); sys.exit(e.status)"
pycase() {  # pycase NAME NEEDLE SETUP FUNCTION ARGS: after SETUP, FUNCTION(*ARGS, a JSON list) raises: exit 2, one line naming NEEDLE
  new_case 6 "python: $1" refuse; tiny; NEEDLE=$2; eval "$3"
  go env PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$REPO/tools/python" TBDRSIM="$BIN" python3 -c "$PYMOD" "$4" "$5"; }
pycase "run('/dev/zero')" /dev/zero true run '["/dev/zero"]'
pycase "run(preset: a base chain 10,000 deep)" "#/base" "$GEN preset_chain pc 10000" run '["t.json", "pc/p10000.json"]'
pycase "advise(200 passes, a finding each)" "advise would price" "$GEN passes p.json 200 1" advise '["p.json"]'
pycase "sweep(a trace that is a folder)" d.json "mkdir d.json" sweep '["d.json", "reference", null, {"hsr": ["none", "early_z"]}]'
pycase "sweep(out: parts/ a symlink)" parts "timeout 60 $BIN sweep t.json --vary hsr=none,early_z --quiet --out s > /dev/null 2>&1; mkdir e; rm -r s/parts; ln -s ../e s/parts" \
  sweep '["t.json", "reference", null, {"hsr": ["none", "early_z"]}, "s"]' 

# ---- table and totals -----------------------------------------------------------------------------
echo
printf '%-5s %-48s %5s %-8s %-6s %5s %8s %7s %s\n' class case exit one-line crash left seconds MiB verdict
FAILS=0
for r in "${ROWS[@]}"; do IFS='|' read -r cl nm rc ol cr lf se mb vd why err rl <<< "$r"
  printf '%-5s %-48s %5s %-8s %-6s %5s %8s %7s %s\n' "$cl" "$nm" "$rc" "$ol" "$cr" "$lf" "$se" "$mb" "$vd"; done
echo
printf '%-5s %6s %13s %8s %11s %9s\n' class cases clean-errors crashes files-left failures
for k in 1 2 3 4 5 6 all; do
  awk -F'|' -v k=$k '(k == "all" || $1 == k) { n++; if ($12 != "signal" && $3 != 0 && $4 == "yes" && $5 == "no") c++; if ($5 != "no") x++; l += $6; if ($9 == "FAIL") f++ }
    END { printf "%-5s %6d %13d %8d %11d %9d\n", k, n, c, x, l, f }' < <(printf '%s\n' "${ROWS[@]}"); done
echo
for r in "${ROWS[@]}"; do IFS='|' read -r cl nm rc ol cr lf se mb vd why err rl <<< "$r"
  [ "$vd" = FAIL ] && { FAILS=$((FAILS + 1)); echo "FAIL [$cl] $nm: $why"; echo "     stderr: $err"; }; done
echo "$N cases, $FAILS failures"
[ $FAILS = 0 ]
