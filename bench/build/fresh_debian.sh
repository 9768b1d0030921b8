#!/usr/bin/env bash
# CI's run on a machine that never built Kiln (issue 44): a fresh Debian 12 (debootstrap bookworm, as a
# new machine has it: none of Kiln's packages, no ccache) in a chroot, a plain clone of HEAD in /root,
# then `CI=true bash .ci/run` timed whole (apt, build, every test), each output line stamped.
# usage (root, on the 2-core box, nothing else running): bench/build/fresh_debian.sh WORK_DIR
#   WORK_DIR/rootfs is made (debootstrap needs Debian's mirror), WORK_DIR/ci.log is the stamped log.
set -euo pipefail
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="${1:?WORK_DIR}"; r="$work/rootfs"
[ "$(id -u)" = 0 ] || { echo "fresh_debian.sh: needs root (debootstrap, chroot, mounts)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "fresh_debian.sh: apt-get install debootstrap first" >&2; exit 2; }
[ -e "$r" ] && { echo "fresh_debian.sh: $r exists: give a new WORK_DIR (the point is a machine that never built Kiln)" >&2; exit 2; }
mkdir -p "$work"
debootstrap bookworm "$r" http://deb.debian.org/debian > "$work/debootstrap.log" 2>&1
git clone -q "$src" "$r/root/kiln"
cp /etc/resolv.conf "$r/etc/resolv.conf"
for m in proc sys dev dev/pts dev/shm; do mount --bind "/$m" "$r/$m"; done
trap 'for m in dev/shm dev/pts dev sys proc; do umount -l "$r/$m" 2>/dev/null || true; done' EXIT
cat > "$r/root/ci.sh" <<'IN'
cd /root/kiln
TIMEFORMAT='WALL %R s  USER %U s  SYS %S s'
{ time CI=true bash .ci/run 2>&1 | while IFS= read -r l; do printf '%(%T)T %s\n' -1 "$l"; done ; } 2>&1
IN
chroot "$r" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin bash /root/ci.sh | tee "$work/ci.log"
grep -E 'tests passed|^.{9}WALL' "$work/ci.log"
