# Every target installs what it needs into .venv first (reusing the system's
# packages where present), so these commands work on a fresh machine.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
export OPENBLAS_NUM_THREADS := 1

.PHONY: install test fuzz lint fmt golden examples bench size demo clean stdlib

$(STAMP): pyproject.toml
	$(PY) -m venv --system-site-packages $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check -e '.[test,lint]'
	touch $(STAMP)

install: $(STAMP)

test: install
	$(BIN)/python -m pytest

fuzz: install
	HYPOTHESIS_PROFILE=fuzz $(BIN)/python -m pytest tests/test_fuzz_programs.py

lint: install
	$(BIN)/python -m ruff check .
	$(BIN)/python -m ruff format --check .

fmt: install
	$(BIN)/python -m ruff format .
	$(BIN)/python -m ruff check --fix .

golden: install
	AUTOGRAPH_REGENERATE_GOLDEN=1 $(BIN)/python -m pytest -q tests -k golden

examples: install
	@for f in examples/*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

# Standard-library modules converted, against CPython's own tests (not part of
# `make test`; needs the interpreter's `test` package). STDLIB_ARGS: e.g.
# `--only argparse,textwrap --jobs 2`.
stdlib: install
	PYTHONPATH=. $(BIN)/python -m stdlib_check.run $(STDLIB_ARGS)

bench: install
	@for f in bench/bench_*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

size: install
	$(BIN)/python -m autograph.tools.size

demo: install
	$(BIN)/autograph examples/demo.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
