#!/usr/bin/env bash
# The consumer test: orch installed as a user outside this repository installs it. Packs every
# package (`pnpm run pack`), creates a fresh project in a temp directory, installs all the
# tarballs there with plain npm (third-party dependencies from the registry), then
#   1. runs the README's embedding example with plain node,
#   2. type-checks it and every package's entry with the project's own TypeScript (~6.0), zod 4
#      and @types/node 20 (nodenext, strict, skipLibCheck false),
#   3. starts the installed orch-apiserver bin, waits for its ready line, stops it with SIGTERM.
# Every step is bounded in time; any failure exits non-zero. Files: scripts/consumer/.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
started=$SECONDS

step() { printf '\nconsumer-test [%ss]: %s\n' "$((SECONDS - started))" "$*"; }
fail() { printf 'consumer-test: FAILED: %s\n' "$*" >&2; exit 1; }

project="$(mktemp -d "${TMPDIR:-/tmp}/orch-consumer.XXXXXX")"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -KILL "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$project"
}
trap cleanup EXIT

step "packing every package: pnpm run pack (clean build, then one tarball per package in dist/tarballs/)"
timeout 600 npx -y pnpm@10 run pack
shopt -s nullglob
tarballs=("$repo"/dist/tarballs/*.tgz)
[ "${#tarballs[@]}" -gt 0 ] || fail "no tarballs in $repo/dist/tarballs"

step "a fresh project in $project: npm install of ${#tarballs[@]} tarballs with zod@4, typescript@~6.0, @types/node@20"
cd "$project"
printf '{ "name": "orch-consumer", "private": true, "type": "module" }\n' > package.json
cp "$repo"/scripts/consumer/{run-readme-example.mjs,entries.ts,tsconfig.json} .
timeout 900 npm install --no-audit --no-fund --loglevel=error "${tarballs[@]}" zod@4 typescript@~6.0 @types/node@20 \
  || fail "npm install of the tarballs"
printf 'installed: %s\n' "$(cd node_modules/@orch && echo *)"

step "the README's embedding example with plain node (README.md, ## Embedding)"
node "$repo/scripts/consumer/prepare-readme-example.mjs" "$repo/README.md" "$project"
timeout 60 node run-readme-example.mjs || fail "the README's embedding example (embedding.mjs in the consumer project)"

step "type-check: tsc (module/moduleResolution nodenext, strict, skipLibCheck false) of the README example and every entry"
timeout 300 node_modules/.bin/tsc --version
timeout 300 node_modules/.bin/tsc -p tsconfig.json || fail "tsc in the consumer project"
echo "tsc: no errors"

step "the installed orch-apiserver bin: --help, then start it and wait (at most 60 s) for its ready line"
timeout 60 node_modules/.bin/orch-apiserver --help > help.txt || fail "orch-apiserver --help"
head -n 1 help.txt
mkdir data
: > server.out
node_modules/.bin/orch-apiserver --secure-port 0 --data-dir "$project/data" > server.out 2> server.err &
server_pid=$!
deadline=$((SECONDS + 60))
until grep -q '^orch-apiserver ready url=' server.out; do
  if ! kill -0 "$server_pid" 2>/dev/null; then
    cat server.out server.err >&2
    fail "orch-apiserver exited before its ready line"
  fi
  if [ "$SECONDS" -ge "$deadline" ]; then
    cat server.out server.err >&2
    fail "orch-apiserver not ready within 60 s"
  fi
  sleep 0.2
done
grep '^orch-apiserver ready url=' server.out
kill -TERM "$server_pid"
deadline=$((SECONDS + 30))
while kill -0 "$server_pid" 2>/dev/null; do
  [ "$SECONDS" -lt "$deadline" ] || fail "orch-apiserver still running 30 s after SIGTERM"
  sleep 0.2
done
status=0
wait "$server_pid" || status=$?
server_pid=""
[ "$status" -eq 0 ] || { cat server.err >&2; fail "orch-apiserver exited with $status after SIGTERM"; }
echo "orch-apiserver stopped with exit code 0 after SIGTERM"

step "passed in $((SECONDS - started)) s"
