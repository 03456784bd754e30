#!/usr/bin/env bash
# Makes this machine able to run Toolsmith's full test suite: installs the Debian packages a fresh
# machine lacks (Docker engine, Chromium, bubblewrap, debootstrap), starts dockerd when none answers,
# and builds the sandbox images (cached by content hash). Idempotent and quick when all is present.
# `--check`: prints the packages it would install (one line, empty when none) and changes nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[ensure-env] %s\n' "$*"; }
# The sbin folders, where Debian installs dockerd and debootstrap, are looked in too: a PATH of
# /usr/bin:/bin (cron's, many CI runners') lacks them, and the tools were then missed (reinstalled, or
# dockerd not started). Added to PATH for the tools this script runs too: dockerd runs iptables from
# there, debootstrap chroot.
path_given=$PATH
for d in /usr/local/sbin /usr/sbin /sbin; do
  case ":$PATH:" in *":$d:"*) ;; *) PATH="$PATH:$d" ;; esac
done
export PATH
# Where a tool was found when the PATH this script was given lacks it (said on the log).
found_outside() {
  local at
  at=$(command -v "$1" 2>/dev/null) || return 0
  PATH=$path_given command -v "$1" >/dev/null 2>&1 || log "$1 found at $at (not on the PATH given: $path_given)"
}
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

need=()
command -v dockerd >/dev/null 2>&1 || need+=(docker.io)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
# The fork server's C loop is built with the host's C compiler (docs/scaling.md); without one the
# worker keeps its Python loop, but the tests check the C one.
command -v cc >/dev/null 2>&1 || need+=(gcc)
[ -e /usr/include/errno.h ] || need+=(libc6-dev)
# pip's wheel: sandboxes' requirements.txt are installed with it inside the image build (docs/sandboxes.md)
compgen -G '/usr/share/python-wheels/pip-*.whl' >/dev/null || need+=(python3-pip-whl)
command -v runsc >/dev/null 2>&1 || need+=(runsc)
# The process-level backend's workers run on the host's Python (3.11+, Debian 12's), and tests use it and
# curl (egress-local-users.test.ts: another user's request through a found socket); a minimal Debian 12
# (a container image, debootstrap's minbase) has neither.
[ -x /usr/bin/python3 ] || need+=(python3)
command -v curl >/dev/null 2>&1 || need+=(curl)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
# Podman's Docker-compatible API as an engine (`[engines.X] kind = "podman"`); catatonit is its init.
command -v podman >/dev/null 2>&1 || need+=(podman)
[ -x /usr/libexec/podman/catatonit ] || need+=(catatonit)
# The store's fault tests: sqlite3 checks a store's integrity, libfaketime steps one process's clock,
# chattr (e2fsprogs) makes a store immutable.
command -v sqlite3 >/dev/null 2>&1 || need+=(sqlite3)
[ -e /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 ] || [ "$(uname -m)" != x86_64 ] || need+=(faketime)
command -v chattr >/dev/null 2>&1 || need+=(e2fsprogs)
# The CLI's approval tests answer on a real pseudo-terminal through util-linux's `script`.
command -v script >/dev/null 2>&1 || need+=(bsdutils)
# The engine tests' second dockerd gets a bridge of its own (`ip link add`): iproute2.
command -v ip >/dev/null 2>&1 || need+=(iproute2)
if [ "${1:-}" = --check ]; then
  echo "${need[*]}"
  exit 0
fi
found_outside dockerd
found_outside debootstrap
if [ ${#need[@]} -gt 0 ]; then
  log "installing ${need[*]}"
  $SUDO apt-get update -q >/dev/null
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null
fi

if ! docker info >/dev/null 2>&1; then
  log "starting dockerd (log: /tmp/toolsmith-dockerd.log)"
  ($SUDO nohup dockerd >/tmp/toolsmith-dockerd.log 2>&1 &)
  for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && break
    sleep 1
  done
  docker info >/dev/null 2>&1 || { log "dockerd did not start; see /tmp/toolsmith-dockerd.log"; tail -20 /tmp/toolsmith-dockerd.log; exit 1; }
fi
# gVisor for `isolation = "gvisor"`: Docker's runtime `runsc` (ptrace platform: works without KVM; no
# network at all). Registered in /etc/docker/daemon.json, then dockerd reloads its configuration (SIGHUP:
# runtimes are reloadable, running containers are not touched).
if ! docker info --format '{{json .Runtimes}}' 2>/dev/null | grep -q '"runsc"'; then
  log "registering the runsc (gVisor) runtime with dockerd"
  $SUDO node -e '
    const fs = require("fs"); const f = "/etc/docker/daemon.json";
    let c = {}; try { c = JSON.parse(fs.readFileSync(f, "utf8")); } catch {}
    c.runtimes = { ...(c.runtimes || {}), runsc: { path: "/usr/bin/runsc", runtimeArgs: ["--platform=ptrace", "--network=none"] } };
    fs.mkdirSync("/etc/docker", { recursive: true }); fs.writeFileSync(f, JSON.stringify(c, null, 2) + "\n");'
  $SUDO kill -HUP "$(pgrep -o -x dockerd)"
  for _ in $(seq 1 20); do
    docker info --format '{{json .Runtimes}}' 2>/dev/null | grep -q '"runsc"' && break
    sleep 0.5
  done
  docker info --format '{{json .Runtimes}}' | grep -q '"runsc"' || { log "dockerd did not pick up the runsc runtime"; exit 1; }
fi

log "docker $(docker version --format '{{.Server.Version}}') answers"

log "building the sandbox images when missing (offline: debootstrap, cached in ~/.cache/toolsmith)"
node_modules/.bin/node bin/toolsmith.mjs image build --runtime python
node_modules/.bin/node bin/toolsmith.mjs image build --runtime node
# bun and deno (off by default; their tests need them): the pinned binaries come from the npm registry on
# the first build (~15 s each, cached in ~/.cache/toolsmith/npm), ~3 s each when up to date.
node_modules/.bin/node bin/toolsmith.mjs image build --runtime bun
node_modules/.bin/node bin/toolsmith.mjs image build --runtime deno
