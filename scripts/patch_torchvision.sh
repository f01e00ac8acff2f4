#!/usr/bin/env bash
# torchvision's Python parts on CPU torch:  scripts/patch_torchvision.sh PYTHON   (called by setup.sh)
#
# PyPI has no CPU build of torchvision 0.28.0 (`pip download torchvision==0.28.0+cpu` finds none): its
# wheel's C++ ops (_C.so) are built for CUDA and do not load beside torch 2.13.0+cpu, and then
# `import torchvision` stops in its fake-op registrations. scripts/patches/torchvision-VERSION.patch makes
# those registrations wait for the ops; models, datasets and transforms then work (torchvision.ops' C++
# kernels, e.g. nms, still do not: `hvdkit doctor` says so). Idempotent; a version without a patch file,
# or an import that already works, is left as installed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
say() { echo "setup: $*" >&2; }
PYTHON=$1

version=$("$PYTHON" -c 'import importlib.metadata as m; print(m.version("torchvision"))' 2>/dev/null) || exit 0
patch_file=scripts/patches/torchvision-$version.patch
[ -f "$patch_file" ] || exit 0
# Where the package lies, found without importing it (the import is what fails).
site=$("$PYTHON" -c 'import importlib.util, os; s = importlib.util.find_spec("torchvision")
print(os.path.dirname(list(s.submodule_search_locations)[0]))')
if patch -p1 -R --dry-run --silent -d "$site" < "$patch_file" >/dev/null 2>&1; then
    say "torchvision $version already patched for CPU torch"
elif "$PYTHON" -c 'import torchvision' >/dev/null 2>&1; then
    say "torchvision $version imports as installed: left unpatched"
elif patch -p1 --forward --silent -d "$site" < "$patch_file" >/dev/null; then
    say "patched torchvision $version for CPU torch ($(basename "$patch_file"))"
else
    say "warning: $patch_file does not apply to $site/torchvision; import torchvision may fail"
fi
