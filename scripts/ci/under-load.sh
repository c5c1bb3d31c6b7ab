#!/usr/bin/env bash
# Runs a command while every core is kept busy by a CPU hog, to prove that no test's verdict
# depends on the machine's speed or load. The hog is bounded in time (DSH_HOG_SECONDS, default
# 1200) and is ended when the command ends, whatever its exit status.
# Usage: scripts/ci/under-load.sh pnpm test
set -euo pipefail
seconds="${DSH_HOG_SECONDS:-1200}"
pids=()
stop_hog() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap stop_hog EXIT
for _ in $(seq "$(nproc)"); do
  # Lowest priority would let the tests take the cores back; the hog competes as an equal.
  timeout "$seconds" sh -c 'while :; do :; done' &
  pids+=("$!")
done
echo "== under load: $(nproc) busy loops for at most ${seconds}s while running: $*"
"$@"
