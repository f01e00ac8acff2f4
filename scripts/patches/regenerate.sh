#!/usr/bin/env bash
# Rebuild horovod-0.28.1-python.patch from the per-fix patches in horovod-python/, or check it.
#
#   scripts/patches/regenerate.sh            rewrite horovod-0.28.1-python.patch
#   scripts/patches/regenerate.sh --check    exit 1 unless the committed file is byte-identical
#
# The per-fix patches (horovod-python/NN-*.patch, applied in name order) are the source: edit those.
# The combined patch is their sum for applying by hand to an installed Horovod's site-packages
# (`patch -p1 -d .../site-packages < horovod-0.28.1-python.patch`); scripts/build_horovod.sh applies the
# per-fix patches. The pristine tree is Horovod 0.28.1's source distribution from the package index
# (pip's cache answers after `make setup`), or $HOROVOD_SDIST (a path to horovod-0.28.1.tar.gz).
set -euo pipefail

HOROVOD_VERSION=0.28.1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
combined="$here/horovod-$HOROVOD_VERSION-python.patch"
PYTHON=${PYTHON:-python3}
check=0
case "${1:-}" in
    --check) check=1 ;;
    "") ;;
    *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sdist=${HOROVOD_SDIST:-}
if [ -z "$sdist" ]; then
    "$PYTHON" -m pip download --quiet --no-deps --no-binary :all: "horovod==$HOROVOD_VERSION" -d "$work" >&2 \
        || { echo "regenerate: could not download horovod==$HOROVOD_VERSION's sdist: set HOROVOD_SDIST" >&2; exit 2; }
    sdist="$work/horovod-$HOROVOD_VERSION.tar.gz"
fi
tar xzf "$sdist" -C "$work" "horovod-$HOROVOD_VERSION/horovod"
tree="$work/horovod-$HOROVOD_VERSION"

# A throwaway repository: git diff's output (with its blob index lines) is a function of the two trees.
g() { git -C "$tree" -c user.name=hvdkit -c user.email=hvdkit@localhost -c core.autocrlf=false "$@"; }
g init --quiet
g add --all
g commit --quiet --no-gpg-sign -m pristine
for p in "$here"/horovod-python/[0-9][0-9]-*.patch; do
    (cd "$tree" && patch -p1 --quiet --forward --no-backup-if-mismatch < "$p") \
        || { echo "regenerate: $(basename "$p") does not apply after the patches before it" >&2; exit 1; }
done
g add --all
g diff --cached --no-color --no-ext-diff --no-renames --abbrev=7 -U3 > "$work/combined.patch"

if [ "$check" = 1 ]; then
    if cmp -s "$work/combined.patch" "$combined"; then
        echo "regenerate: $(basename "$combined") is the sum of $(ls "$here"/horovod-python/*.patch | wc -l) per-fix patches ($(wc -l < "$combined") lines, identical)"
        exit 0
    fi
    echo "regenerate: $(basename "$combined") differs from the per-fix patches' sum: run scripts/patches/regenerate.sh" >&2
    diff -u "$combined" "$work/combined.patch" | head -40 >&2 || true
    exit 1
fi
cp "$work/combined.patch" "$combined"
echo "regenerate: wrote $(basename "$combined") ($(wc -l < "$combined") lines)"
