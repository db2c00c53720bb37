#!/bin/sh
# The mounts installer/systemd/runbox-agent.service gives the agent, made by hand in the caller's
# mount namespace (run it under `unshare -m`), then exec of the rest of the command line. For
# hosts without systemd as PID 1 (test_service_mount_layout). systemd.exec(5):
#   ProtectSystem=strict     every mount read-only, except /dev, /proc, /sys and the writable
#                            directories (StateDirectory=: here STATE)
#   PrivateTmp=yes           /tmp and /var/tmp: a private directory (here PRIVATE_TMP)
#   ProtectHome=yes          /home, /root, /run/user: empty and inaccessible
#   ProtectKernelModules=yes /usr/lib/modules: inaccessible
# With "tunables" also what ProtectKernelTunables=yes does to /proc/sys (read-only bind over it):
# the positive control, under which bwrap can no longer mount a fresh procfs.
# Usage: service_mount_layout.sh STATE PRIVATE_TMP [tunables] -- COMMAND...
set -eu
state=$1
private_tmp=$2
shift 2
tunables=no
if [ "${1:-}" = tunables ]; then
    tunables=yes
    shift
fi
[ "${1:-}" = -- ] && shift
mount --make-rslave /
mount --bind "$state" "$state"
awk '{print $5}' /proc/self/mountinfo | sort -u | while read -r point; do
    case "$point" in
    /proc | /proc/* | /sys | /sys/* | /dev | /dev/*) continue ;;
    esac
    [ "$point" = "$state" ] && continue
    mount -o remount,bind,ro "$point" 2>/dev/null || true
done
# /tmp first, then /var/tmp from it: either bind may hide where PRIVATE_TMP lives.
mount --bind "$private_tmp" /tmp
mount --bind /tmp /var/tmp
for dir in /home /root /run/user /usr/lib/modules; do
    if [ -d "$dir" ]; then
        mount -t tmpfs -o ro,mode=000 inaccessible "$dir"
    fi
done
if [ "$tunables" = yes ]; then
    mount --bind /proc/sys /proc/sys
    mount -o remount,bind,ro /proc/sys
fi
exec "$@"
