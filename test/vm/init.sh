#!/bin/sh
# /init of the test VM's initramfs (busybox sh; PID 1). Built into the initramfs by test/vm/run.
#
# 1. load the boot modules packed in /mods (virtio, virtiofs, overlay, virtio_console),
# 2. mount the host's root (virtiofs tag "hostroot") read-only under a tmpfs overlay at /mnt/root,
# 3. load the network modules (sctp, sch_netem, veth, nf_tables...) from the kernel tree in the
#    host's cache (visible through hostroot); /sbin/modprobe here serves kernel autoloading too,
# 4. chroot into the overlay and run the job script the runner wrote (path on the command line),
#    its stdout+stderr on the virtio-serial port "sctpapps.out" (streamed to the runner's stdout),
# 5. report "@@SCTPAPPS_VM_EXIT <status> <uptime>@@" on the serial console and power off.
export PATH=/bin:/sbin
R=/mnt/root

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

uptime_s() { read -r up _ </proc/uptime; echo "$up"; }
DEBUG=
stage() { [ -z "$DEBUG" ] || echo "sctpapps-vm init: $(uptime_s) $*" >/dev/ttyS0; }

finish() { # finish STATUS
	echo "@@SCTPAPPS_VM_EXIT $1 $(uptime_s)@@" >/dev/ttyS0
	sync
	[ -n "$OUT" ] && umount "$R$OUT" 2>/dev/null
	poweroff -f
	reboot -f
}

fail() {
	echo "sctpapps-vm init: $*" >/dev/ttyS0
	finish 125
}

JOB=
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	sctpvm_job=*) JOB=${arg#sctpvm_job=} ;;
	sctpvm_debug) DEBUG=1 ;;
	esac
done
[ -n "$JOB" ] || fail "no sctpvm_job= on the kernel command line"

stage start
while read -r m; do
	insmod "/mods/$m.ko" || fail "insmod $m failed"
done </mods/order

stage boot modules loaded
mkdir -p /mnt/lower /mnt/rw
i=0
until mount -t virtiofs -o ro hostroot /mnt/lower 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 50 ] || fail "cannot mount virtiofs tag hostroot"
	usleep 20000
done
mount -t tmpfs -o mode=0755 rwlayer /mnt/rw
mkdir -p /mnt/rw/upper /mnt/rw/work $R
mount -t overlay -o lowerdir=/mnt/lower,upperdir=/mnt/rw/upper,workdir=/mnt/rw/work,index=off,xino=off,metacopy=off,redirect_dir=off \
	overlay $R || fail "cannot mount the overlay"

stage overlay mounted
# the runner's job directory (same path as on the host): job.sh, moddir, load, out
J=/mnt/lower$JOB
[ -f "$J/job.sh" ] || fail "job $JOB/job.sh not visible through virtiofs"
OUT='' MODDIR='' LOAD=''
[ -f "$J/out" ] && read -r OUT <"$J/out"
[ -f "$J/moddir" ] && read -r MODDIR <"$J/moddir"
[ -f "$J/load" ] && LOAD=$(cat "$J/load")
KVER=$(uname -r)
if [ -n "$MODDIR" ] && [ -d "/mnt/lower$MODDIR" ]; then
	mkdir -p /lib/modules
	ln -s "/mnt/lower$MODDIR" "/lib/modules/$KVER"
	echo /sbin/modprobe >/proc/sys/kernel/modprobe
	req='' opt=''
	for m in $LOAD; do
		case "$m" in \?*) opt="$opt ${m#\?}" ;; *) req="$req $m" ;; esac
	done
	[ -z "$req" ] || modprobe -a $req || echo "sctpapps-vm init: modprobe -a$req failed" >/dev/ttyS0
	stage required modules loaded
	[ -z "$opt" ] || modprobe -q -a $opt 2>/dev/null
else
	echo "sctpapps-vm init: module tree $MODDIR not visible" >/dev/ttyS0
fi

stage modules loaded
mount -t proc proc $R/proc
mount -t sysfs sysfs $R/sys
mount -t devtmpfs devtmpfs $R/dev
mkdir -p $R/dev/pts $R/dev/shm
mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts $R/dev/pts
mount -t tmpfs -o mode=1777 shm $R/dev/shm
# /tmp stays the overlay (host /tmp readable, writes in RAM): callers may work under /tmp
mount -t tmpfs -o mode=0755 run $R/run
mount -t cgroup2 cgroup2 $R/sys/fs/cgroup 2>/dev/null
mount -t bpf bpf $R/sys/fs/bpf 2>/dev/null
mount -t debugfs debugfs $R/sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs $R/sys/kernel/tracing 2>/dev/null
if [ -n "$MODDIR" ]; then
	mkdir -p "$R/lib/modules/$KVER" && mount --bind "/mnt/lower$MODDIR" "$R/lib/modules/$KVER"
fi
if [ -n "$OUT" ]; then
	mkdir -p "$R$OUT" && mount -t virtiofs vmout "$R$OUT" || fail "cannot mount the VM_OUT share at $OUT"
fi
# module tools for scripts: the host often lacks kmod; use the initramfs's busybox then
mkdir -p $R/run/sctpapps-vm && cp /bin/busybox $R/run/sctpapps-vm/busybox
for t in modprobe lsmod insmod rmmod modinfo; do
	[ -e "$R/sbin/$t" ] || [ -e "$R/usr/sbin/$t" ] || ln -s /run/sctpapps-vm/busybox "$R/usr/sbin/$t"
done

# the output port (virtio-serial, name sctpapps.out; ports show up asynchronously)
CON=
i=0
while [ -z "$CON" ] && [ $i -lt 200 ]; do
	for d in /sys/class/virtio-ports/*; do
		[ "$(cat "$d/name" 2>/dev/null)" = sctpapps.out ] && CON=/dev/${d##*/}
	done
	[ -n "$CON" ] && [ -c "$CON" ] && break
	CON=
	i=$((i + 1))
	usleep 10000
done
[ -n "$CON" ] || fail "no virtio-serial port sctpapps.out"

hostname sctpapps-vm
# a kernel oops ends the run at once (panic=-1 reboots, qemu -no-reboot exits) and the runner shows
# the console, instead of a test hanging on a dead kernel thread until the timeout
echo 1 >/proc/sys/kernel/panic_on_oops
ip link set lo up

echo "@@SCTPAPPS_VM_START $(uptime_s)@@" >/dev/ttyS0
chroot $R /bin/bash "$JOB/job.sh" </dev/null >"$CON" 2>&1
finish $?
