# scripts/debsrc.sh: Debian source packages for apt-get source (sourced by patches/apply and
# scripts/usrsctp-release.sh). The caller defines die MSG, say MSG and log NAME CMD... (CMD
# run with its output in a log of that name, die when it fails).
# shellcheck shell=bash
DEBSRC=/etc/apt/sources.list.d/sctpapps-patches-src.sources

# debsrc_version PKG VER: VER if the archive has it, else its newest revision of VER's upstream
# version (Debian 13 has httperf 0.9.0-10 where 12 has 0.9.0-9; the orig tarball is the same);
# nothing when neither is there.
debsrc_version() {
	local pkg=$1 ver=$2 v best=
	for v in $(apt-cache showsrc "$pkg" 2>/dev/null | sed -n 's/^Version: //p'); do
		[ "$v" = "$ver" ] && { echo "$v"; return; }
		[ "${v%-*}" = "${ver%-*}" ] || continue
		if [ -z "$best" ] || dpkg --compare-versions "$v" gt "$best"; then best=$v; fi
	done
	[ -z "$best" ] || echo "$best"
}

# debsrc_need PKG VER: apt-cache showsrc knows PKG at VER (or debsrc_version's other revision),
# else a deb-src entry of our own ($DEBSRC: the suites the system's deb entries use, and
# Debian 12, bookworm, whose source versions patches/apply names) and apt-get update (root);
# dies when the source is still not there.
debsrc_need() {
	local pkg=$1 ver=$2 suite suites
	apt-cache showsrc "$pkg" 2>/dev/null | grep -qx "Version: $ver" && return 0
	suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ -n "$suite" ] || die "cannot tell the Debian release from /etc/os-release"
	suites="$suite $suite-updates"
	[ "$suite" = bookworm ] || suites="$suites bookworm"
	[ "$(id -u)" -eq 0 ] || die "source $pkg $ver: needs root to add a deb-src entry and run apt-get update (run once as root)"
	if ! grep -qx "Suites: $suites" "$DEBSRC" 2>/dev/null; then
		say "deb-src ($suites) in $DEBSRC"
		cat >"$DEBSRC" <<EOF
# added by sctpapps (patches/apply, scripts/usrsctp-release.sh): Debian sources for apt-get source
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $suites
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
	fi
	say "apt-get update"
	log apt-update apt-get update -q
	[ -n "$(debsrc_version "$pkg" "$ver")" ] ||
		die "source $pkg ${ver%-*} (Debian $ver or another revision) is not in the archive (apt-cache showsrc $pkg; apt-get update needs the network)"
}
