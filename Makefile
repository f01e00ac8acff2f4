# hvdkit: `make demo` runs the main job, `make test` the test suite; both set everything up first.
# `make test-fast` and `make lint` are the quick checks for a checkout that is already set up.
PYTHON ?= .venv/bin/python
BIN := $(dir $(PYTHON))
# The venv's scripts (hvdkit, horovodrun) must be found by the jobs these targets launch.
export PATH := $(abspath $(BIN)):$(PATH)

.PHONY: setup test test-fast lint demo bench conformance fuzz clean

setup:
	@bash scripts/setup.sh $(PYTHON)

# Two workers: the serial run kept the two cores 67% busy (one-process tests, launch start-up, waits on
# timeouts); tests/conftest.py keeps each file, and the files sharing launches, on one worker.
test: setup
	$(PYTHON) -m pytest tests -n 2

# No setup and no multi-rank launch (tests marked slow): minutes -> about a minute, for every edit.
test-fast:
	$(PYTHON) -m pytest tests -m "not slow" -q

# ruff, as configured in pyproject.toml; installed by setup (setup.cfg's dev extra).
lint: setup
	$(PYTHON) -m ruff check .

demo: setup
	@bash scripts/demo.sh $(PYTHON)

bench: setup
	$(PYTHON) -m benchmarks.run

# Horovod's own test suite and examples, unmodified, at 2 ranks: pass/fail records, not timings.
conformance: setup
	$(PYTHON) -m conformance.upstream

# The readers' fuzzing, 40 s per target and engine; rewrites tests/fuzz_results.json.
fuzz: setup
	$(PYTHON) tests/fuzz_readers.py --seconds 40

clean:
	rm -rf results build *.egg-info .pytest_cache
