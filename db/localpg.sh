#!/usr/bin/env bash
# A private PostgreSQL cluster for development and tests, kept under .data/ in the repository.
#   db/localpg.sh start   install Debian's postgresql when missing, create the cluster once, start it,
#                         create the database, then print its DATABASE_URL on stdout (and nothing else)
#   db/localpg.sh stop    stop the cluster if it runs
#   db/localpg.sh url     print the DATABASE_URL
# Environment: PARLEY_PG_PORT (default 54329, away from a system PostgreSQL on 5432),
# PARLEY_PG_DB (default parley). Run as root, the cluster runs as the unprivileged user "postgres".
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
port=${PARLEY_PG_PORT:-54329}
dbname=${PARLEY_PG_DB:-parley}
say() { echo "localpg: $*" >&2; }

pgbin() {
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -z "$d" ] || [ ! -x "$d/initdb" ]; then
    say "PostgreSQL binaries missing; installing Debian's postgresql package"
    local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq >&2 || true
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >&2
    d=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
  fi
  echo "$d"
}

# as_owner runs a command as the cluster's owner: ourselves, or "postgres" when we are root
# (PostgreSQL refuses to run as root).
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# datadir picks .data/pg, or, when root's checkout is not reachable by the postgres user
# (e.g. it lives under /root), a private folder under /var/tmp linked from .data/pg.
datadir() {
  mkdir -p "$root/.data"
  if [ "$(id -u)" -ne 0 ]; then echo "$root/.data/pg"; return; fi
  id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /bin/sh postgres
  if [ -L "$root/.data/pg" ]; then readlink "$root/.data/pg"; return; fi
  if runuser -u postgres -- test -x "$root/.data" 2>/dev/null || { chown postgres "$root/.data" && runuser -u postgres -- test -x "$root/.data"; }; then
    echo "$root/.data/pg"
  else
    local alt
    alt="/var/tmp/parley-pg-$(echo -n "$root" | sha1sum | cut -c1-12)"
    ln -sfn "$alt" "$root/.data/pg"
    echo "$alt"
  fi
}

url() { echo "postgres://parley@127.0.0.1:${port}/${dbname}?sslmode=disable"; }

start() {
  local bin data
  bin=$(pgbin)
  data=$(datadir)
  if [ ! -s "$data/PG_VERSION" ]; then
    say "creating a private cluster in $data"
    mkdir -p "$data"
    [ "$(id -u)" -eq 0 ] && chown postgres "$data"
    as_owner "$bin/initdb" -D "$data" -U parley --auth=trust --encoding=UTF8 --no-locale >/dev/null
    cat >>"$data/postgresql.conf" <<CONF
# Parley's private cluster: local connections only.
listen_addresses = '127.0.0.1'
unix_socket_directories = ''
max_connections = 200
CONF
  fi
  # A search reads one person's matching rows all over chat_message: keep them in PostgreSQL's own
  # cache rather than the 128MB default (clusters made before this get it at their next start).
  if ! grep -q '^shared_buffers = 1GB' "$data/postgresql.conf"; then
    echo "shared_buffers = 1GB" | as_owner tee -a "$data/postgresql.conf" >/dev/null
  fi
  if ! as_owner "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      say "port $port is taken by another program; set PARLEY_PG_PORT to a free port"
      exit 1
    fi
    as_owner "$bin/pg_ctl" -D "$data" -o "-p $port" -l "$data/server.log" -w -t 60 start >/dev/null
    say "PostgreSQL running on 127.0.0.1:$port (data in $data)"
  fi
  if ! "$bin/psql" -h 127.0.0.1 -p "$port" -U parley -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$dbname'" | grep -q 1; then
    "$bin/createdb" -h 127.0.0.1 -p "$port" -U parley "$dbname"
  fi
  url
}

stop() {
  local bin data
  bin=$(pgbin)
  data=$(datadir)
  if [ -s "$data/PG_VERSION" ] && as_owner "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
    as_owner "$bin/pg_ctl" -D "$data" -m fast -w stop >/dev/null
    say "stopped"
  else
    say "not running"
  fi
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  url) url ;;
  *) echo "usage: $0 start|stop|url" >&2; exit 2 ;;
esac
