# Every target installs what it needs into .venv first (reusing the system's
# packages where present), so these commands work on a fresh machine. Each
# installs only what it needs (see "What each command installs" in README.md):
#   demo, size                 the package and NumPy
#   test, fuzz, golden         + the `test` extra: pytest (+ xdist), Hypothesis, JAX, a Jupyter kernel
#   examples, bench            + the `jax` extra
#   notebook                   + the `notebook` extra: a Jupyter kernel, matplotlib
#   lint, fmt                  + the `lint` extra: ruff
#   install                    all of the above
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip install -q --disable-pip-version-check
NOTEBOOK := examples/guide.ipynb
export OPENBLAS_NUM_THREADS := 1

.PHONY: install test fuzz lint fmt golden examples bench size demo notebook clean stdlib thirdparty

$(BIN)/python:
	$(PY) -m venv --system-site-packages $(VENV)

# One stamp per set of extras, redone when pyproject.toml changes.
$(VENV)/.installed-base: pyproject.toml | $(BIN)/python
	$(PIP) -e .
	touch $@

$(VENV)/.installed-%: pyproject.toml | $(BIN)/python
	$(PIP) -e '.[$*]'
	touch $@

install: $(VENV)/.installed-test $(VENV)/.installed-lint $(VENV)/.installed-notebook

# -n auto: one pytest worker per core (pytest-xdist). --dist worksteal: an
# idle worker takes tests queued for the other; with the default scheduling
# the fuzz tests, collected last, went to one worker as one chunk of ~115 s
# while the other sat idle (2:28 wall; 1:58 with worksteal on 2 idle cores).
test: $(VENV)/.installed-test
	$(BIN)/python -m pytest -n auto --dist worksteal

fuzz: $(VENV)/.installed-test
	HYPOTHESIS_PROFILE=fuzz $(BIN)/python -m pytest -n auto --dist worksteal tests/test_fuzz_programs.py

lint: $(VENV)/.installed-lint
	$(BIN)/python -m ruff check .
	$(BIN)/python -m ruff format --check .

fmt: $(VENV)/.installed-lint
	$(BIN)/python -m ruff format .
	$(BIN)/python -m ruff check --fix .

golden: $(VENV)/.installed-test
	AUTOGRAPH_REGENERATE_GOLDEN=1 $(BIN)/python -m pytest -q tests -k golden

examples: $(VENV)/.installed-jax
	@for f in examples/*.py examples/guides/*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

# Standard-library modules converted, against CPython's own tests (not part of
# `make test`; needs the interpreter's `test` package). STDLIB_ARGS: e.g.
# `--only argparse,textwrap --jobs 2`.
stdlib: $(VENV)/.installed-base
	PYTHONPATH=. $(BIN)/python -m stdlib_check.run $(STDLIB_ARGS)

# The same against third-party packages' own tests (pytest), those installed
# of mpmath, sympy, scipy and networkx (see stdlib_check/README.md).
thirdparty: $(VENV)/.installed-test
	PYTHONPATH=. $(BIN)/python -m stdlib_check.run --third-party $(STDLIB_ARGS)

# Figures go to bench/out/ (untracked); `make bench RECORD=1` writes the
# tracked bench/results/ that README.md quotes.
bench: $(VENV)/.installed-jax
	@set -e; files="$$(ls bench/bench_*.py)"; n=$$(echo "$$files" | wc -l); i=0; \
	start=$$(date +%s); \
	for f in $$files; do \
		i=$$((i + 1)); t=$$(date +%s); \
		echo "== [$$i/$$n] $$f (started at +$$((t - start)) s)"; \
		AUTOGRAPH_BENCH_RECORD=$(RECORD) $(BIN)/python $$f; \
	done; \
	echo "== $$n benches in $$(( $$(date +%s) - start )) s"

size: $(VENV)/.installed-base
	$(BIN)/python -m autograph.tools.size

demo: $(VENV)/.installed-base
	$(BIN)/autograph examples/demo.py

# Runs the guide notebook in a Jupyter kernel and saves it with its outputs
# (without timings, so running it again changes nothing).
notebook: $(VENV)/.installed-notebook
	$(BIN)/python -c "import nbclient, nbformat; \
	nb = nbformat.read('$(NOTEBOOK)', as_version=4); \
	[cell.metadata.pop('execution', None) for cell in nb.cells]; \
	nbclient.NotebookClient(nb, timeout=600, kernel_name='python3', record_timing=False, coalesce_streams=True, \
	resources={'metadata': {'path': '.'}}).execute(); \
	nbformat.write(nb, '$(NOTEBOOK)'); print('ran and saved $(NOTEBOOK)')"

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache bench/out
