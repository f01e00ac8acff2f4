# hvdkit: `make demo` runs the main job, `make test` the test suite; both set everything up first.
PYTHON ?= .venv/bin/python
BIN := $(dir $(PYTHON))
# The venv's scripts (hvdkit, horovodrun) must be found by the jobs these targets launch.
export PATH := $(abspath $(BIN)):$(PATH)

.PHONY: setup test demo bench conformance fuzz clean

setup:
	@bash scripts/setup.sh $(PYTHON)

test: setup
	$(PYTHON) -m pytest tests

demo: setup
	@bash scripts/demo.sh $(PYTHON)

bench: setup
	$(PYTHON) -m benchmarks.run

# Horovod's own test suite and examples, unmodified, at 2 ranks: pass/fail, not timed (about an hour).
conformance: setup
	$(PYTHON) -m conformance.upstream

# The readers' fuzzing, 40 s per target and engine; rewrites tests/fuzz_results.json.
fuzz: setup
	$(PYTHON) tests/fuzz_readers.py --seconds 40

clean:
	rm -rf results build *.egg-info .pytest_cache
