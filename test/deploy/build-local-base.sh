#!/usr/bin/env bash
# Builds a local stand-in for the official Node image, for machines that reach no container registry:
# Debian bookworm (debootstrap --variant=minbase) plus this machine's Node.js, laid out as the official
# image lays it out (/usr/local/bin/node, npm under /usr/local/lib/node_modules, headers under
# /usr/local/include/node), and this machine's CA bundle so that npm and apt work behind its proxy.
# Usage: build-local-base.sh IMAGE_NAME   (podman must be configured; run as root)
set -euo pipefail
image="$1"
node_bin="$(readlink -f "$(command -v node)")"
node_prefix="$(dirname "$(dirname "$node_bin")")"          # /usr for Debian/NodeSource packages
npm_dir="$node_prefix/lib/node_modules/npm"
headers="$node_prefix/include/node"
for p in "$node_bin" "$npm_dir" "$headers"; do
  [ -e "$p" ] || { echo "build-local-base: $p is missing (Node.js with npm and headers is required)" >&2; exit 1; }
done
mirror="$(sed -n 's/^URIs: *\(http[^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)"
mirror="${mirror:-http://deb.debian.org/debian}"

root="$(mktemp -d /var/tmp/greenline-base.XXXXXX)"
trap 'rm -rf "$root"' EXIT
debootstrap --variant=minbase bookworm "$root/fs" "$mirror" >"$root/debootstrap.log" 2>&1 \
  || { tail -n 30 "$root/debootstrap.log" >&2; exit 1; }
# What the official image's apt setup keeps out: caches and downloaded lists.
rm -rf "$root/fs/var/cache/apt/archives/"*.deb "$root/fs/var/lib/apt/lists/"*
install -D -m 0755 "$node_bin" "$root/fs/usr/local/bin/node"
mkdir -p "$root/fs/usr/local/lib/node_modules" "$root/fs/usr/local/include"
cp -a "$npm_dir" "$root/fs/usr/local/lib/node_modules/npm"
cp -a "$headers" "$root/fs/usr/local/include/node"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/fs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/fs/usr/local/bin/npx"
mkdir -p "$root/fs/etc/ssl/certs"
cp /etc/ssl/certs/ca-certificates.crt "$root/fs/etc/ssl/certs/ca-certificates.crt"
tar -C "$root/fs" -c . | podman import --change 'CMD ["node"]' --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' - "$image" >/dev/null
echo "$image"
