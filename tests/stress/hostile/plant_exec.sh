#!/bin/bash
# plant_exec.sh DIR VICTIM CMD...: plants symlinks to VICTIM at every name a sweep staged under before staged outputs were named unpredictably
# (".NAME.tmp-PID-N", the PID being this shell's, which CMD keeps by exec), then runs CMD: the victim must stay.
dir=$1 victim=$2; shift 2; mkdir -p "$dir/parts"
for i in $(seq 0 15); do
  for n in sweep.json results.csv results.json attachments.csv report.html; do ln -sf "$victim" "$dir/.$n.tmp-$$-$i"; done
  for p in 0 1 2 3; do ln -sf "$victim" "$dir/parts/.00000$p.json.tmp-$$-$i"; done
done
exec "$@"
