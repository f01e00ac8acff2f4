#!/usr/bin/env bash
# Build Horovod 0.28.1 against the torch/TensorFlow that PYTHON already has, and install it there.
#
#   scripts/build_horovod.sh [PYTHON]        (default: .venv/bin/python, else python3)
#
# Horovod's last release does not build from its sdist against torch >= 2.1 or TF >= 2.16, and its
# TensorFlow/Keras Python layer assumes Keras 2. The patches in scripts/patches/ fix that
# (docs/horovod-patch.md):
#   horovod-0.28.1.patch   the smallest build change (C++17, XLA ops only for GPU builds);
#   horovod-core/*.patch   C++ changes, one file per fix, applied in name order: the background thread
#                          wakes when a tensor is enqueued instead of sleeping out its cycle;
#   horovod-python/*.patch Python only, one file per fix, applied in name order: Horovod's own TF/Keras
#                          API on Keras 3, and two faults of horovod.torch's broadcast_optimizer_state;
#                          Keras 2 keeps its original code paths. (horovod-0.28.1-python.patch is their
#                          sum, made by scripts/patches/regenerate.sh, for patching an installed Horovod.)
# The compiled wheel is cached under $HVDKIT_CACHE (default ~/.cache/hvdkit) keyed by everything that
# changes the binary; the Python patches are applied to a copy of that wheel (seconds, no recompilation),
# cached under a key that adds their hash. A second run, or a second venv with the same
# versions, only reinstalls.
#
# Build options the user sets are passed through untouched: HOROVOD_GPU_OPERATIONS, HOROVOD_CUDA_HOME,
# HOROVOD_NCCL_HOME, HOROVOD_GPU, HOROVOD_WITHOUT_* ... (https://horovod.readthedocs.io/en/stable/install_include.html).
set -euo pipefail

HOROVOD_VERSION=0.28.1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
patch_file="$here/patches/horovod-$HOROVOD_VERSION.patch"
py_patches=("$here"/patches/horovod-python/[0-9][0-9]-*.patch)  # name order: the order they apply in
core_patches=("$here"/patches/horovod-core/[0-9][0-9]-*.patch)
[ -f "${py_patches[0]}" ] || { echo "build_horovod: no patches in $here/patches/horovod-python" >&2; exit 1; }
[ -f "${core_patches[0]}" ] || { echo "build_horovod: no patches in $here/patches/horovod-core" >&2; exit 1; }
PYTHON=${1:-${PYTHON:-}}
if [ -z "$PYTHON" ]; then
    if [ -x "$here/../.venv/bin/python" ]; then PYTHON="$here/../.venv/bin/python"; else PYTHON=python3; fi
fi
cache_root=${HVDKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hvdkit}

say() { echo "build_horovod: $*" >&2; }
die() { say "error: $*"; exit 1; }

command -v "$PYTHON" >/dev/null 2>&1 || die "no python at '$PYTHON'; pass the interpreter of your environment as the first argument"

# What the target interpreter has decides what Horovod is built with.
read -r py_ver torch_ver tf_ver <<<"$("$PYTHON" - <<'EOF'
import importlib.metadata as md, sys
def v(*names):
    for n in names:
        try:
            return md.version(n)
        except md.PackageNotFoundError:
            pass
    return "none"
print(f"{sys.version_info[0]}.{sys.version_info[1]}", v("torch"), v("tensorflow", "tensorflow-cpu", "tensorflow-intel"))
EOF
)"
[ "$torch_ver" = none ] && [ "$tf_ver" = none ] && die "$PYTHON has neither torch nor tensorflow; install one first (pip install torch==2.13.0 tensorflow-cpu==2.21.0)"

# Frameworks and controllers: require what is there, unless the user chose otherwise.
if [ "$torch_ver" != none ]; then : "${HOROVOD_WITH_PYTORCH:=1}"; else : "${HOROVOD_WITHOUT_PYTORCH:=1}"; fi
if [ "$tf_ver" != none ]; then : "${HOROVOD_WITH_TENSORFLOW:=1}"; else : "${HOROVOD_WITHOUT_TENSORFLOW:=1}"; fi
if command -v mpicxx >/dev/null 2>&1; then : "${HOROVOD_WITH_MPI:=1}"; else
    say "mpicxx not found: building without MPI (Gloo only). Install OpenMPI headers (Debian: apt-get install libopenmpi-dev) for the MPI controller."
    : "${HOROVOD_WITHOUT_MPI:=1}"
fi
: "${HOROVOD_WITH_GLOO:=1}" "${HOROVOD_WITHOUT_MXNET:=1}"
export HOROVOD_WITH_PYTORCH HOROVOD_WITHOUT_PYTORCH HOROVOD_WITH_TENSORFLOW HOROVOD_WITHOUT_TENSORFLOW \
       HOROVOD_WITH_MPI HOROVOD_WITHOUT_MPI HOROVOD_WITH_GLOO HOROVOD_WITHOUT_MXNET 2>/dev/null || true
# CMake 4 rejects gloo's cmake_minimum_required(2.8); harmless with CMake 3.x.
export CMAKE_POLICY_VERSION_MINIMUM=${CMAKE_POLICY_VERSION_MINIMUM:-3.5}

# Every setting that changes the binary goes into the cache key.
build_env=$(env | grep -E '^(HOROVOD_|CMAKE_|CC=|CXX=|CUDA)' | sort || true)
patch_hash=$(cat "$patch_file" "${core_patches[@]}" | sha256sum | cut -c1-12)
env_hash=$(printf '%s' "$build_env" | sha256sum | cut -c1-12)
build_key="horovod-$HOROVOD_VERSION-patch-$patch_hash-py$py_ver-torch-$torch_ver-tf-$tf_ver-env-$env_hash"
build_dir="$cache_root/wheels/$build_key"
key="$build_key-python-$(cat "${py_patches[@]}" | sha256sum | cut -c1-12)"
wheel_dir="$cache_root/wheels/$key"
prefix=$("$PYTHON" -c 'import sys; print(sys.prefix)')
stamp="$prefix/.hvdkit-horovod-key"

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key" ] && "$PYTHON" -c 'import horovod' 2>/dev/null; then
    say "Horovod $HOROVOD_VERSION already installed for this key ($key)"
    exit 0
fi

if ! ls "$build_dir"/horovod-*.whl >/dev/null 2>&1; then
    say "building Horovod $HOROVOD_VERSION for python $py_ver, torch $torch_ver, tensorflow $tf_ver (a few minutes)"
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    "$PYTHON" -m pip download --quiet --no-deps --no-binary :all: "horovod==$HOROVOD_VERSION" -d "$work" \
        || die "could not download the horovod==$HOROVOD_VERSION source distribution from the package index"
    tar xzf "$work/horovod-$HOROVOD_VERSION.tar.gz" -C "$work"
    for p in "$patch_file" "${core_patches[@]}"; do
        (cd "$work/horovod-$HOROVOD_VERSION" && patch -p1 --quiet < "$p") || die "patch $p does not apply"
    done
    "$PYTHON" -m pip install --quiet setuptools wheel packaging psutil pyyaml cloudpickle cffi
    MAKEFLAGS="-j$(nproc)" "$PYTHON" -m pip wheel --no-deps --no-build-isolation -w "$work/dist" \
        "$work/horovod-$HOROVOD_VERSION" > "$work/build.log" 2>&1 || {
        tail -40 "$work/build.log" >&2
        cp "$work/build.log" "$cache_root/last-build.log" 2>/dev/null || true
        die "Horovod build failed; full log above (last 40 lines). See docs/install.md: Troubleshooting the Horovod build"
    }
    mkdir -p "$build_dir"
    mv "$work"/dist/horovod-*.whl "$build_dir/"
    printf '%s\n' "$build_env" > "$build_dir/build-env.txt"
fi

if ! ls "$wheel_dir"/horovod-*.whl >/dev/null 2>&1; then
    say "applying ${#py_patches[@]} Python patches (scripts/patches/horovod-python/) to the compiled wheel"
    unpacked=$(mktemp -d)
    "$PYTHON" -m pip install --quiet wheel
    "$PYTHON" -m wheel unpack --dest "$unpacked" "$build_dir"/horovod-*.whl >/dev/null
    for p in "${py_patches[@]}"; do
        (cd "$unpacked/horovod-$HOROVOD_VERSION" && patch -p1 --quiet < "$p") \
            || die "patch $p does not apply to the built wheel"
    done
    mkdir -p "$wheel_dir.tmp"
    "$PYTHON" -m wheel pack --dest-dir "$wheel_dir.tmp" "$unpacked/horovod-$HOROVOD_VERSION" >/dev/null
    rm -rf "$unpacked" "$wheel_dir" && mv "$wheel_dir.tmp" "$wheel_dir"
fi

say "installing $(basename "$wheel_dir"/horovod-*.whl) from cache"
"$PYTHON" -m pip install --quiet --force-reinstall --no-deps "$wheel_dir"/horovod-*.whl
"$PYTHON" -m pip install --quiet cloudpickle psutil pyyaml packaging cffi
echo "$key" > "$stamp"
"$PYTHON" -c 'import horovod; print("build_horovod: installed horovod", horovod.__version__)'
