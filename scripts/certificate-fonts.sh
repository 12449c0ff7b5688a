#!/usr/bin/env bash
# Makes the regular-weight CJK fonts of certificate/fonts: Noto Sans CJK
# Regular cut down to the characters of the certificates' Japanese,
# Korean and Chinese wording (only the wording is drawn in regular weight
# in CJK; names, titles and organisations are bold and use the whole
# NotoSansCJK-Bold.ttc). Run it after changing certificate/wording.go;
# `go test ./certificate` fails when a wording character is missing.
#
# Needs Debian's fonts-noto-cjk and fonttools (pyftsubset), installed with
# apt-get when missing and allowed (root, LEARNGATE_NO_APT unset).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
SRC=/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc
DIR=certificate/fonts
if [[ ! -f "$SRC" ]] || ! command -v pyftsubset >/dev/null; then
	[[ "$(id -u)" == 0 && -z "${LEARNGATE_NO_APT:-}" ]] || { echo "need fonts-noto-cjk and fonttools" >&2; exit 1; }
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends fonts-noto-cjk fonttools >/dev/null
fi
text="$(mktemp -d)"
trap 'rm -rf "$text"' EXIT
# index in the collection: JP 0, KR 1, SC 2, TC 3, HK 4
declare -A number=([jp]=0 [kr]=1 [sc]=2 [hk]=4)
for r in jp kr sc hk; do # the package embeds these files: a placeholder lets it build the first time
	[[ -f "$DIR/NotoSansCJK$r-Regular-Wording.otf" ]] ||
		pyftsubset "$SRC" --font-number="${number[$r]}" --text=A --output-file="$DIR/NotoSansCJK$r-Regular-Wording.otf"
done
go test -count=1 ./certificate -run '^TestCJKWordingFontsCoverTheWording$' -wording-text="$text" >/dev/null
for r in jp kr sc hk; do
	pyftsubset "$SRC" --font-number="${number[$r]}" --text-file="$text/$r.txt" --layout-features='*' \
		--no-hinting --desubroutinize --name-IDs='*' --output-file="$DIR/NotoSansCJK$r-Regular-Wording.otf"
	echo "$DIR/NotoSansCJK$r-Regular-Wording.otf: $(wc -c <"$DIR/NotoSansCJK$r-Regular-Wording.otf") bytes"
done
