#!/usr/bin/env bash
# Builds the base image the Docker tests build on (images cannot be pulled on the development machines):
# a minimal Debian bookworm rootfs from the Debian mirror, imported as personal-envs-test/bookworm-minbase:latest.
# Needs root, debootstrap and a running Docker engine:  apt-get install docker.io debootstrap; dockerd &
set -euo pipefail
IMAGE="personal-envs-test/bookworm-minbase:latest"
if docker image inspect "$IMAGE" >/dev/null 2>&1; then echo "$IMAGE is already built"; exit 0; fi
ROOTFS="$(mktemp -d /var/tmp/bookworm-rootfs.XXXXXX)"
trap 'rm -rf "$ROOTFS"' EXIT
debootstrap --variant=minbase bookworm "$ROOTFS" >/dev/null
tar -C "$ROOTFS" -c . | docker import - "$IMAGE"
echo "built $IMAGE"
