#!/usr/bin/env bash
# The flake hunt (docs/development.md "Flake hunt"): runs CI (`.ci/run`, both suites) on fresh
# clones of a commit, ROUNDS times in a row, each beside a second copy of both suites on another
# clone, so that every round runs on a machine as busy as a shared CI host. Prints each round's
# outcome and every failed test name; the logs stay under OUT.
#
#   bash scripts/flake-hunt.sh [ROUNDS=5] [COMMIT=HEAD] [OUT=/tmp/portcullis-flake-hunt]
#
# Exit status: 0 when every CI run and every load run passed, 1 otherwise.
set -uo pipefail
rounds="${1:-5}"
repo="$(cd "$(dirname "$0")/.." && pwd)"
commit="$(git -C "$repo" rev-parse "${2:-HEAD}")"
out="${3:-/tmp/portcullis-flake-hunt}"
mkdir -p "$out"
export PRISMA_SCHEMA_ENGINE_BINARY="${PRISMA_SCHEMA_ENGINE_BINARY:-$(command -v node)}"
export PRISMA_ENGINES_CHECKSUM_IGNORE_MISSING=1 PRISMA_HIDE_UPDATE_MESSAGE=1 CHECKPOINT_DISABLE=1

clone() {
  rm -rf "$1"
  git clone -q --no-local "$repo" "$1" && git -C "$1" checkout -q "$commit"
}

# Failed test names in a vitest log (its FAIL lines, colours removed).
failures() {
  sed 's/\x1b\[[0-9;]*m//g' "$1" | grep -E '^ *(FAIL|×) ' | sort -u
}

status=0
echo "flake hunt: $rounds rounds of .ci/run at ${commit:0:12}, each beside a second copy of both suites; logs in $out"
for round in $(seq 1 "$rounds"); do
  ci="$out/ci-$round" load="$out/load-$round"
  clone "$ci/repo" && clone "$load/repo" || exit 2
  (
    cd "$load/repo" &&
      npm ci --no-audit --no-fund >/dev/null 2>&1 &&
      { npm test; t=$?; npm run test:postgres; p=$?; exit $(( t || p )); }
  ) >"$load/log" 2>&1 &
  loader=$!
  started=$(date +%s)
  bash "$ci/repo/.ci/run" >"$ci/log" 2>&1
  ci_status=$?
  seconds=$(( $(date +%s) - started ))
  wait "$loader"
  load_status=$?
  echo "round $round: .ci/run exit $ci_status in ${seconds}s; load copy exit $load_status"
  for log in "$ci/log" "$load/log"; do failures "$log" | sed "s|^|  $(basename "$(dirname "$log")"): |"; done
  if [ "$ci_status" -ne 0 ] || [ "$load_status" -ne 0 ]; then status=1; fi
  rm -rf "$ci/repo" "$load/repo"
done
exit "$status"
