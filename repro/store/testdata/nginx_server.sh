#!/usr/bin/env bash
# Starts and stops a throwaway nginx that serves a Bazel HTTP remote cache
# (WebDAV PUT + GET/HEAD) on 127.0.0.1, for the remote store's tests and for
# users trying the setup of docs/STORE.md. Everything (config, root, logs,
# pid, temp files) lives in DIR; nothing runs as root unless the caller is.
#
#   nginx_server.sh start DIR [PORT]   prints the port; with
#                                      $NGINX_AUTH_USER and $NGINX_AUTH_PASSWORD set,
#                                      every request needs basic auth
#   nginx_server.sh stop DIR           fast shutdown, waits until it is gone
#   nginx_server.sh kill DIR           SIGKILL (a server dying mid-transfer)
#
# /slow/ serves the same objects at 16 MiB/s (to stop a server mid-transfer).
set -euo pipefail

action=${1:?usage: nginx_server.sh start|stop|kill DIR [PORT]}
dir=${2:?usage: nginx_server.sh start|stop|kill DIR [PORT]}
nginx=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}

# A random port nobody answers on; if nginx cannot bind it, start tries another.
free_port() {
  local port
  while true; do
    port=$((20000 + RANDOM % 40000))
    answers "$port" || break
  done
  echo "$port"
}

answers() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

stop() {
  local signal=$1
  [[ -f "$dir/nginx.pid" ]] || return 0
  local pid
  pid=$(cat "$dir/nginx.pid")
  if [[ $signal == KILL ]]; then
    # Workers outlive a killed master: freeze the master (so it respawns
    # nothing), kill its workers, then the master.
    kill -STOP "$pid" 2>/dev/null || true
    pkill -KILL -P "$pid" 2>/dev/null || true
  fi
  kill "-$signal" "$pid" 2>/dev/null || true
  for _ in $(seq 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  rm -f "$dir/nginx.pid"
}

case "$action" in
  start)
    mkdir -p "$dir/root" "$dir/tmp"
    dir=$(cd "$dir" && pwd)
    auth=""
    if [[ -n "${NGINX_AUTH_USER:-}" ]]; then
      printf '%s:{PLAIN}%s\n' "$NGINX_AUTH_USER" "${NGINX_AUTH_PASSWORD:-}" >"$dir/htpasswd"
      auth="auth_basic \"reprokit\"; auth_basic_user_file $dir/htpasswd;"
    fi
    user=""
    [[ $(id -u) == 0 ]] && user="user $(id -un) $(id -gn);"
    for attempt in 1 2 3 4 5; do
      port=${3:-$(free_port)}
      cat >"$dir/nginx.conf" <<CONF
$user
worker_processes 2;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 512; }
http {
  access_log $dir/access.log;
  client_body_temp_path $dir/tmp/body;
  proxy_temp_path $dir/tmp/proxy;
  fastcgi_temp_path $dir/tmp/fastcgi;
  uwsgi_temp_path $dir/tmp/uwsgi;
  scgi_temp_path $dir/tmp/scgi;
  client_max_body_size 0;
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:$port;
    root $dir/root;
    location / {
      dav_methods PUT;
      create_full_put_path on;
      dav_access user:rw group:r all:r;
      $auth
    }
    location /slow/ {
      alias $dir/root/;
      limit_rate 16m;
      $auth
    }
  }
}
CONF
      if "$nginx" -p "$dir" -e "$dir/error.log" -c "$dir/nginx.conf" 2>>"$dir/start.log"; then
        for _ in $(seq 100); do
          if answers "$port"; then
            echo "$port"
            exit 0
          fi
          sleep 0.05
        done
        stop TERM
      fi
      [[ -n "${3:-}" ]] && break
    done
    echo "nginx_server.sh: nginx did not start; see $dir/start.log and $dir/error.log" >&2
    cat "$dir/start.log" "$dir/error.log" >&2 2>/dev/null || true
    exit 1
    ;;
  stop) stop TERM ;;
  kill) stop KILL ;;
  *)
    echo "nginx_server.sh: unknown action '$action'" >&2
    exit 2
    ;;
esac
