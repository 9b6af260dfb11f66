#!/bin/sh
# Build the Internet-Draft(s) in drafts/: XML (RFC 7991, via mmark) and HTML, into a build folder.
#
# usage: drafts/build.sh [OUTDIR]        default OUTDIR: out/drafts (git-ignored)
#
# Needs mmark (Debian: apt-get install mmark) and python3. xml2rfc is not in Debian 12; where it
# is installed (pip), its HTML and text renderings are made as well (NAME.txt, NAME.xml2rfc.html).
# Fails on any mmark error, malformed XML, or a cross reference without a target.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../out/drafts}
mkdir -p "$out"
out=$(cd "$out" && pwd)

command -v mmark >/dev/null 2>&1 || { echo "build.sh: mmark not found (apt-get install mmark)" >&2; exit 1; }
command -v python3 >/dev/null 2>&1 || { echo "build.sh: python3 not found" >&2; exit 1; }

status=0
for md in "$here"/draft-*.md; do
	name=$(basename "$md" .md)
	# A citation alone on a line ending in ':' is parsed as a link definition and vanishes.
	if grep -n '^\[@[^]]*\]:[[:space:]]*$' "$md" >&2; then
		echo "build.sh: $md: citation parsed as a link definition (move it off the line start)" >&2
		status=1
	fi
	xml=$out/$name.xml
	# mmark resolves includes relative to the source; run it there.
	(cd "$here" && mmark "$(basename "$md")") >"$xml.tmp" 2>"$out/$name.mmark.log" || {
		cat "$out/$name.mmark.log" >&2; echo "build.sh: mmark failed on $md" >&2; status=1; continue; }
	if [ -s "$out/$name.mmark.log" ]; then
		cat "$out/$name.mmark.log" >&2; echo "build.sh: mmark warnings on $md" >&2; status=1
	fi
	rm -f "$out/$name.mmark.log"
	mv "$xml.tmp" "$xml"
	if command -v xmllint >/dev/null 2>&1; then
		xmllint --noout "$xml" || { echo "build.sh: $xml is not well-formed" >&2; status=1; continue; }
	fi
	python3 "$here/xml2html.py" "$xml" "$out/$name.html" || status=1
	if command -v xml2rfc >/dev/null 2>&1; then
		xml2rfc --quiet --text -o "$out/$name.txt" "$xml" || status=1
		xml2rfc --quiet --html -o "$out/$name.xml2rfc.html" "$xml" || status=1
	fi
	echo "built $out/$name.xml $out/$name.html"
done
exit $status
