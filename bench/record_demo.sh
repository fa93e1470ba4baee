#!/usr/bin/env bash
# Records a demo build's terminal: `script` (typescript + timing, replay with
# `scriptreplay --timing=demo-build.timing demo-build.typescript`) inside a tmux pane, plus plain-text
# snapshots of the pane every few seconds. The build is interrupted with Ctrl-C a few seconds after
# dedup starts and then rerun, so the recording shows the progress display, a clean interrupt and the
# resume.
#
#   bench/record_demo.sh            (needs out/demo/sdists from `make demo`, and tmux)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=out/demo-recording
REC=bench/recordings
PYTHON=${PYTHON:-.venv/bin/python}
rm -rf "$OUT" "$REC"/demo-build.*
cat > "$REC/.session.sh" <<SESSION
cd $PWD
mix() { PYTHONPATH=$PWD $PYTHON -m mix "\$@"; }
export STDLIB="\$($PYTHON -c 'import sysconfig; print(sysconfig.get_path("stdlib"))')"
echo "\$ mix build examples/demo.yaml --out $OUT"
mix build examples/demo.yaml --out $OUT
echo "(exit status \$?)"
echo "\$ mix build examples/demo.yaml --out $OUT      # the same command again: resume"
mix build examples/demo.yaml --out $OUT
echo "(exit status \$?)"
SESSION
tmux kill-session -t codemix-demo 2>/dev/null || true
tmux new-session -d -s codemix-demo -x 150 -y 45 \
  "script -q --timing=$REC/demo-build.timing $REC/demo-build.typescript -c 'bash $REC/.session.sh'; sleep 3600"
snapshot() { { echo "===== $(date +%H:%M:%S)"; tmux capture-pane -p -t codemix-demo | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'; } >> "$REC/demo-build.snapshots.txt"; }
interrupted=0
while true; do
  sleep 5
  snapshot
  if [ $interrupted = 0 ] && [ -d "$OUT/work/dedup.partial" ]; then
    sleep 3; snapshot; tmux send-keys -t codemix-demo C-c; interrupted=1; sleep 2; snapshot
  fi
  if [ "$(grep -c '(exit status' "$REC/demo-build.typescript" 2>/dev/null || true)" -ge 2 ]; then
    sleep 2; snapshot; break
  fi
done
tmux kill-session -t codemix-demo
rm -f "$REC/.session.sh"
gzip -f -9 "$REC/demo-build.typescript"
