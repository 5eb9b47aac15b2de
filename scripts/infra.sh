#!/usr/bin/env bash
# Makes a MongoDB-wire server, RabbitMQ and Redis reachable for the system and its tests.
# - MONGO_URL / AMQP_URL / REDIS_URL set: those are used as they are (nothing is started).
# - Otherwise, on machines without Docker: FerretDB v1.24.2 is built with `go install` (cached),
#   and run on the local PostgreSQL (or SQLite when PostgreSQL is absent); RabbitMQ and Redis are
#   started when installed but stopped.
# Idempotent; when everything already runs it returns in well under 10 seconds.
set -euo pipefail

FERRETDB_VERSION=v1.24.2
# The S3-compatible store of the media files (MEDIA_STORE=s3) on machines without Docker.
VERSITYGW_VERSION=v1.8.0
ROOT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
STATE_DIR=${SOCIAL_STATE_DIR:-$HOME/.cache/social-api}
# Our patches to FerretDB (scripts/ferretdb/*.patch; why: see each file). A build is cached per
# version and patch content, so a changed patch gets a build of its own.
FERRETDB_PATCHES=("$ROOT_DIR"/scripts/ferretdb/*.patch)
FERRETDB_BUILD_ID=$(cat "${FERRETDB_PATCHES[@]}" | sha256sum | cut -c1-12)
FERRETDB_HOME=$STATE_DIR/ferretdb-$FERRETDB_VERSION-$FERRETDB_BUILD_ID
FERRETDB_BIN=$FERRETDB_HOME/bin/ferretdb
FERRETDB_PORT=${FERRETDB_PORT:-27017}
# pool_max_conns: FerretDB 1.24 holds one pooled connection for an update's query and takes a
# second for its transaction, so as many concurrent updates as the pool has connections deadlock it
# for good (seen with 50, its default). 400 is more than every process of two test systems can
# ask at once (services keep at most 20 connections each, see @social/mongo).
FERRETDB_PG_POOL=400
PG_MAX_CONNECTIONS=500
# sslmode=disable: TLS to a PostgreSQL on the same host only costs CPU (a tenth of FerretDB's).
PG_URL=${FERRETDB_POSTGRESQL_URL:-postgres://postgres@127.0.0.1:5432/ferretdb?pool_max_conns=$FERRETDB_PG_POOL&sslmode=disable}

say() { printf '[infra] %s\n' "$*" >&2; }
die() { printf '[infra] ERROR: %s\n' "$*" >&2; exit 1; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_port() { # port name seconds
  local i
  for ((i = 0; i < $3 * 10; i++)); do port_open "$1" && return 0; sleep 0.1; done
  die "$2 did not open port $1 within $3 s; see its log above"
}

# `go install module@version` is refused by proxies that hide the module's version list, and a
# module-zip build of FerretDB panics without build/version/version.txt. So we build it with
# `go install` inside a small wrapper module whose replace points at a copy holding version.txt.
# build_ferretdb [home patch...]: builds into home/bin (default: our build, every patch applied).
build_ferretdb() {
  local home=${1:-$FERRETDB_HOME}
  local patches=("${FERRETDB_PATCHES[@]}")
  [ $# -gt 0 ] && patches=("${@:2}")
  command -v go >/dev/null || die "Go is needed to build FerretDB (install Go, or set MONGO_URL)"
  say "building FerretDB $FERRETDB_VERSION with go install (first time only, about 2 minutes)"
  local work=$home/build
  rm -rf "$work" && mkdir -p "$work" && cd "$work"
  cat > go.mod <<GOMOD
module social-ferretdb-build

go 1.22

require github.com/FerretDB/FerretDB $FERRETDB_VERSION
GOMOD
  printf '//go:build tools\n\npackage tools\n\nimport _ "github.com/FerretDB/FerretDB/cmd/ferretdb"\n' > tools.go
  GOFLAGS=-mod=mod go mod download github.com/FerretDB/FerretDB
  local src
  src=$(GOFLAGS=-mod=mod go list -m -f '{{.Dir}}' github.com/FerretDB/FerretDB)
  cp -r "$src" ferretdb-src && chmod -R u+w ferretdb-src
  echo "$FERRETDB_VERSION" > ferretdb-src/build/version/version.txt
  local p
  for p in "${patches[@]}"; do
    say "applying $(basename "$p")"
    patch -p1 -s -d ferretdb-src < "$p" || die "$(basename "$p") does not apply to FerretDB $FERRETDB_VERSION"
  done
  go mod edit -replace "github.com/FerretDB/FerretDB=./ferretdb-src"
  GOFLAGS=-mod=mod go mod tidy
  GOBIN=$home/bin go install github.com/FerretDB/FerretDB/cmd/ferretdb
  cd - >/dev/null
  # Read the whole output first: `| grep -q` exits at the first match, and under pipefail the
  # SIGPIPE FerretDB then gets fails the check on a correct build.
  local version
  version=$("$home/bin/ferretdb" --version)
  [[ $version == *"version: $FERRETDB_VERSION"* ]] || die "FerretDB build has the wrong version: $version"
}

start_postgres() {
  port_open 5432 && return 0
  command -v pg_ctlcluster >/dev/null || return 1
  say "starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || return 1
  wait_port 5432 PostgreSQL 20
}

# Room for FerretDB's pool (above) next to everything else on this PostgreSQL. Needs a restart,
# done once, before FerretDB starts.
ensure_pg_connections() {
  local have
  have=$(psql "${PG_URL%/*}/postgres" -tAc 'SHOW max_connections')
  [ "$have" -ge "$PG_MAX_CONNECTIONS" ] && return 0
  say "raising PostgreSQL max_connections from $have to $PG_MAX_CONNECTIONS (restart)"
  psql "${PG_URL%/*}/postgres" -qc "ALTER SYSTEM SET max_connections = $PG_MAX_CONNECTIONS" >/dev/null
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main restart
  wait_port 5432 PostgreSQL 20
}

# FerretDB keeps each collection as a PostgreSQL table and leaves vacuum and statistics to the
# server. Without autovacuum (some machines turn it off: this CI image does, in conf.d) tables are
# never analyzed, so the planner guesses that every jsonb filter matches half the table: a
# compare-and-set on {workspaceId, _id, version} then ANDs the whole workspace's index entries with
# the one of _id (2 ms instead of 0.1 at 3,000 posts, growing with the workspace), and dead row
# versions pile up in every index. Reloadable, no restart.
ensure_pg_autovacuum() {
  command -v psql >/dev/null && port_open 5432 || return 0
  [ "$(psql "${PG_URL%/*}/postgres" -tAc 'SHOW autovacuum')" = on ] && return 0
  say "turning PostgreSQL autovacuum on (FerretDB's tables need statistics and vacuum)"
  psql "${PG_URL%/*}/postgres" -qc "ALTER SYSTEM SET autovacuum = on" -c "SELECT pg_reload_conf()" >/dev/null
}

# The FerretDB this script started earlier, when it runs a build other than the current one
# (an older patch, or none): its pid, else nothing.
outdated_ferretdb_pid() {
  local pid exe
  pid=$(cat "$STATE_DIR/ferretdb.pid" 2>/dev/null) || return 0
  exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 0
  [[ $exe == "$STATE_DIR"/ferretdb-* ]] || return 0
  # Also outdated: one started before its debug listener was turned off (it held our webhooks port).
  if [[ $exe != "$FERRETDB_BIN" ]] || ! tr '\0' '\n' < "/proc/$pid/cmdline" | grep -qx -- '--debug-addr=-'; then
    echo "$pid"
  fi
  return 0
}

ensure_mongo() {
  if [ -n "${MONGO_URL:-}" ]; then say "MONGO_URL is set; using it"; return; fi
  local old
  old=$(outdated_ferretdb_pid)
  if [ -n "$old" ]; then
    [ -x "$FERRETDB_BIN" ] || build_ferretdb
    say "FerretDB runs an outdated build; restarting it with the current one"
    kill "$old"
    local i
    for ((i = 0; i < 100; i++)); do port_open "$FERRETDB_PORT" || break; sleep 0.1; done
  fi
  if port_open "$FERRETDB_PORT"; then ensure_pg_autovacuum; return; fi
  [ -x "$FERRETDB_BIN" ] || build_ferretdb
  mkdir -p "$STATE_DIR"
  # --state-dir: FerretDB keeps a state.json there (the working directory by default).
  # --debug-addr=-: FerretDB's metrics and pprof listener defaults to 127.0.0.1:8088, the webhooks
  # service's port; we do not use it.
  local args=(--listen-addr="127.0.0.1:$FERRETDB_PORT" --debug-addr=- --telemetry=disable --log-level=warn --state-dir="$STATE_DIR")
  if start_postgres && command -v psql >/dev/null; then
    psql "${PG_URL%/*}/postgres" -tAc "SELECT 1 FROM pg_database WHERE datname='ferretdb'" | grep -q 1 ||
      psql "${PG_URL%/*}/postgres" -qc 'CREATE DATABASE ferretdb' >/dev/null
    ensure_pg_connections
    ensure_pg_autovacuum
    # Index use for FerretDB's equality pushdown (why: see the file).
    psql "${PG_URL%%\?*}" -q -v ON_ERROR_STOP=1 -f "$ROOT_DIR/scripts/ferretdb-pg-indexes.sql" >/dev/null
    args+=(--handler=pg --postgresql-url="$PG_URL")
    say "starting FerretDB on PostgreSQL (127.0.0.1:$FERRETDB_PORT)"
  else
    mkdir -p "$STATE_DIR/sqlite"
    args+=(--handler=sqlite --sqlite-url="file:$STATE_DIR/sqlite/")
    say "PostgreSQL not available; starting FerretDB on SQLite (127.0.0.1:$FERRETDB_PORT)"
  fi
  # setsid: FerretDB must outlive this script and the shell or CI step that ran it.
  # GOGC=400: FerretDB allocates heavily per operation and its live heap is small; collecting
  # less often gave it a third more operations per second on this 2-core machine.
  GOGC=${FERRETDB_GOGC:-400} setsid "$FERRETDB_BIN" "${args[@]}" >>"$STATE_DIR/ferretdb.log" 2>&1 < /dev/null &
  echo $! > "$STATE_DIR/ferretdb.pid"
  wait_port "$FERRETDB_PORT" FerretDB 30
}

# versitygw (an S3 gateway; posix backend: a bucket is a directory) for MEDIA_STORE=s3 and its
# tests, on 127.0.0.1:$S3_PORT. Built once with `go install` (cached like FerretDB); its credentials
# are made once per machine (owner-only) and read by `pnpm start` and the tests.
S3_PORT=${S3_PORT:-7070}
VERSITYGW_HOME=$STATE_DIR/versitygw-$VERSITYGW_VERSION
VERSITYGW_BIN=$VERSITYGW_HOME/bin/versitygw
S3_STATE=$STATE_DIR/s3
S3_BUCKET_DEFAULT=social-media

ensure_s3() {
  if [ -n "${S3_ENDPOINT:-}" ]; then say "S3_ENDPOINT is set; using it"; return; fi
  mkdir -p "$S3_STATE/data" && chmod 700 "$S3_STATE"
  if [ ! -s "$S3_STATE/credentials.env" ]; then
    (umask 077 && printf 'S3_ACCESS_KEY_ID=social-%s\nS3_SECRET_ACCESS_KEY=%s\n' \
      "$(head -c 6 /dev/urandom | od -An -tx1 | tr -d ' \n')" "$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')" \
      > "$S3_STATE/credentials.env")
  fi
  port_open "$S3_PORT" && return
  if [ ! -x "$VERSITYGW_BIN" ]; then
    command -v go >/dev/null || { say "WARNING: Go not found; versitygw (MEDIA_STORE=s3) not built"; return; }
    say "building versitygw $VERSITYGW_VERSION with go install (first time only, a few minutes)"
    GOBIN=$VERSITYGW_HOME/bin go install "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION"
  fi
  # shellcheck disable=SC1091
  . "$S3_STATE/credentials.env"
  say "starting versitygw (S3, posix backend) on 127.0.0.1:$S3_PORT"
  ROOT_ACCESS_KEY=$S3_ACCESS_KEY_ID ROOT_SECRET_KEY=$S3_SECRET_ACCESS_KEY setsid "$VERSITYGW_BIN" \
    --port "127.0.0.1:$S3_PORT" posix "$S3_STATE/data" >>"$STATE_DIR/versitygw.log" 2>&1 < /dev/null &
  echo $! > "$STATE_DIR/versitygw.pid"
  wait_port "$S3_PORT" versitygw 30
  # The bucket `pnpm start` uses (tests make their own).
  curl -fsS --aws-sigv4 "aws:amz:us-east-1:s3" --user "$S3_ACCESS_KEY_ID:$S3_SECRET_ACCESS_KEY" \
    -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" -X PUT "http://127.0.0.1:$S3_PORT/$S3_BUCKET_DEFAULT" -o /dev/null 2>/dev/null || true
  unset S3_ACCESS_KEY_ID S3_SECRET_ACCESS_KEY
}

ensure_rabbitmq() {
  if [ -n "${AMQP_URL:-}" ]; then say "AMQP_URL is set; using it"; return; fi
  port_open 5672 && return
  command -v rabbitmq-server >/dev/null || die "RabbitMQ is not installed and AMQP_URL is not set (apt-get install rabbitmq-server)"
  say "starting RabbitMQ"
  rabbitmq-server -detached
  wait_port 5672 RabbitMQ 60
}

ensure_redis() {
  if [ -n "${REDIS_URL:-}" ]; then say "REDIS_URL is set; using it"; return; fi
  port_open 6379 && return
  command -v redis-server >/dev/null || die "Redis is not installed and REDIS_URL is not set (apt-get install redis-server)"
  say "starting Redis"
  mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
  wait_port 6379 Redis 20
}

ensure_ffmpeg() {
  command -v ffprobe >/dev/null && return
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing ffmpeg (media decoding) from Debian's packages"
    (apt-get install -y -qq ffmpeg >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq ffmpeg >/dev/null; }) ||
      say "WARNING: ffmpeg could not be installed; video processing will fail"
  else
    say "WARNING: ffprobe not found; install ffmpeg for video processing"
  fi
}

case "${1:-up}" in
  up)
    ensure_mongo
    ensure_rabbitmq
    ensure_redis
    ensure_ffmpeg
    ensure_s3
    say "ready: mongo ${MONGO_URL:-mongodb://127.0.0.1:$FERRETDB_PORT/} amqp ${AMQP_URL:-amqp://127.0.0.1:5672} redis ${REDIS_URL:-redis://127.0.0.1:6379}"
    ;;
  ferretdb-builds)
    # Prints the path of our build and of FerretDB as released (built once).
    [ -x "$FERRETDB_BIN" ] || build_ferretdb >&2
    stock=$STATE_DIR/ferretdb-$FERRETDB_VERSION-stock
    [ -x "$stock/bin/ferretdb" ] || build_ferretdb "$stock" >&2
    printf '%s\n%s\n' "$FERRETDB_BIN" "$stock/bin/ferretdb"
    ;;
  ferretdb-build)
    # For `pnpm bench db`: prints the path of a build with the given patch files applied in the
    # given order (none: as released), cached per patch content like ours.
    shift
    patches=()
    for p in "$@"; do patches+=("$(realpath "$p")"); done
    set -- "${patches[@]}"
    if [ $# -eq 0 ]; then
      home=$STATE_DIR/ferretdb-$FERRETDB_VERSION-stock
    else
      home=$STATE_DIR/ferretdb-$FERRETDB_VERSION-$(cat "$@" | sha256sum | cut -c1-12)
    fi
    [ -x "$home/bin/ferretdb" ] || build_ferretdb "$home" "$@" >&2
    echo "$home/bin/ferretdb"
    ;;
  s3-credentials)
    # For the tests and `pnpm start`: the local store's credentials file (made by `up`).
    echo "$S3_STATE/credentials.env"
    ;;
  stop-ferretdb)
    [ -f "$STATE_DIR/ferretdb.pid" ] && kill "$(cat "$STATE_DIR/ferretdb.pid")" 2>/dev/null || true
    ;;
  *) die "usage: infra.sh [up|stop-ferretdb|ferretdb-builds|ferretdb-build [patch...]|s3-credentials]" ;;
esac
