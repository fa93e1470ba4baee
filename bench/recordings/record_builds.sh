#!/usr/bin/env bash
# Records `mix build examples/demo.yaml` on terminals 80 and 160 columns wide as asciinema v2 casts
# (bench/recordings/record_cast.py: the build runs on a pty of that size), then writes each cast's
# last screen as text. Needs the demo's sdists (`make demo` fetches them into out/sdists).
#
#   bench/recordings/record_builds.sh          (PYTHON=.venv/bin/python by default)
set -euo pipefail
cd "$(dirname "$0")/../.."
PYTHON=${PYTHON:-.venv/bin/python}
REC=bench/recordings
test -f out/sdists/list.txt || make out/sdists/list.txt
export STDLIB="$($PYTHON -c 'import sysconfig; print(sysconfig.get_path("stdlib"))')"
for cols in ${WIDTHS:-80 160}; do
  out=out/recording-$cols
  rm -rf "$out"
  $PYTHON $REC/record_cast.py --cols "$cols" --rows 40 --out "$REC/build-$cols.cast" \
    --title "mix build examples/demo.yaml at $cols columns" -- \
    $PYTHON -m codemix.mix build examples/demo.yaml --out "$out"
  $PYTHON $REC/record_cast.py --screen "$REC/build-$cols.cast" > "$REC/build-$cols.last-screen.txt"
  gzip -f -9 "$REC/build-$cols.cast"
done
