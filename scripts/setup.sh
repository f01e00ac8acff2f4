#!/usr/bin/env bash
# Everything hvdkit needs, idempotent:  scripts/setup.sh [PYTHON]   (what `make setup` runs)
#
# Without PYTHON (or with .venv/bin/python) it creates .venv with the pinned frameworks.
# With another interpreter (a cluster conda env, say) it keeps that env's torch/TensorFlow, builds a
# Horovod that matches them, and installs hvdkit there editable.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
say() { echo "setup: $*" >&2; }

VENV_PY=.venv/bin/python
PYTHON=${1:-$VENV_PY}
BASE_PYTHON=${BASE_PYTHON:-python3}

# 1. System packages (Debian names). Missing ones are installed when we can, listed when we cannot.
sys_pkgs=(openmpi-bin libopenmpi-dev cmake g++ make patch dataset-fashion-mnist)
missing=()
if command -v dpkg-query >/dev/null 2>&1; then
    for p in "${sys_pkgs[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
else
    for tool in mpirun mpicxx cmake g++ make patch; do command -v $tool >/dev/null 2>&1 || missing+=("$tool"); done
fi
if [ ${#missing[@]} -gt 0 ]; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        say "installing system packages: ${missing[*]}"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    elif command -v apt-get >/dev/null 2>&1 && command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        say "installing system packages with sudo: ${missing[*]}"
        sudo apt-get update -qq
        sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    else
        say "cannot install system packages here; please provide: ${missing[*]}"
        say "  (an MPI with its compiler wrappers, e.g. 'module load openmpi'; CMake 3.13-3.x; a C++17 compiler)"
        say "going on with what is available"
    fi
fi

# 2. Python environment. A stamp of the dependency spec lets a second run skip pip entirely.
same_venv() { [ "$1" = "$VENV_PY" ] || { [ -e "$VENV_PY" ] && [ "$(realpath -m "$1")" = "$(realpath -m "$VENV_PY")" ]; }; }
if same_venv "$PYTHON"; then
    PYTHON=$VENV_PY
    if [ ! -x "$VENV_PY" ]; then
        say "creating .venv with $BASE_PYTHON"
        "$BASE_PYTHON" -m venv .venv
    fi
    extras="torch,tensorflow,mpi,dev"
else
    command -v "$PYTHON" >/dev/null 2>&1 || { say "error: no interpreter '$PYTHON'"; exit 2; }
    extras="mpi,dev"   # a user's own env keeps its own framework versions
fi
prefix=$("$PYTHON" -c 'import sys; print(sys.prefix)')
spec_hash=$(cat setup.cfg pyproject.toml | sha256sum | cut -c1-16)-$extras
stamp="$prefix/.hvdkit-deps"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$spec_hash" ] || ! "$PYTHON" -c 'import hvdkit' 2>/dev/null; then
    say "installing hvdkit[$extras] (editable) into $prefix"
    "$PYTHON" -m pip install --quiet --upgrade pip
    "$PYTHON" -m pip install --quiet -e ".[$extras]"
    echo "$spec_hash" > "$stamp"
else
    say "python dependencies up to date in $prefix"
fi

# 3. torchvision's Python parts on CPU torch (its PyPI wheel is a CUDA build): a small patch, idempotent.
bash scripts/patch_torchvision.sh "$PYTHON"

# 4. Horovod, built against what that interpreter has.
bash scripts/build_horovod.sh "$PYTHON"
say "done. Activate with: source $(dirname "$PYTHON")/activate"
