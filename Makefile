# eagerkernel: set-up, tutorials, tests and benchmarks. GNU make; every target sets itself up
# on a fresh machine (Debian packages, .venv, the Eager kernelspec) and is quick once it has.
#
#   make tutorials   run the tutorial notebooks (TUTORIALS) with the Eager kernel (HTML in build/tutorials)
#   make test        ruff, unit tests + doctests (with the headless-Chromium browser test),
#                    notebooks (nbval); a summary at the end
#   make notebook    Jupyter Notebook on notebooks/, Eager kernel available (NOTEBOOK_ARGS: its options)
#   make lab         the same in JupyterLab
#   make bench       benchmarks/*.py side by side with peers (installs the CPU PyTorch; WITH_TF=1 adds TF)
#   make fuzz        the fuzzers (tests/fuzz) long: about ten minutes; `make test` runs them briefly

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
.DELETE_ON_ERROR:

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
# pytest-xdist workers for the unit tests; 0 runs them in one process, which is the faster on
# 2 cores today (700 short tests: 37 s serial, 65 s with -n 2, measured).
WORKERS ?= 0
XDIST := $(if $(filter-out 0,$(WORKERS)),-n $(WORKERS))
TORCH_VERSION ?= 2.13.0
# Debian packages the tutorials use when present (Fashion-MNIST in /usr/share), and Chromium
# (/usr/bin/chromium) for the browser test (tests/test_browser.py, skipped without it).
DEB_PACKAGES ?= dataset-fashion-mnist chromium graphviz
LINT_PATHS := eagerkernel tests benchmarks tools $(wildcard conftest.py setup.py)
# The tutorials, by name: a notebook a user saves in notebooks/ is not run by `make test`.
TUTORIALS ?= 00_welcome 01_eager_basics 02_datasets 03_models_and_layers \
  04_training_fashion_mnist 05_checkpoints 06_devices 07_inspecting_tapes 08_gradients_in_depth \
  09_graph_functions 10_tensorflow2_code 11_distributed
NOTEBOOKS := $(wildcard $(foreach t,$(TUTORIALS),notebooks/$(t).ipynb))
# Options of `make notebook` and `make lab`, passed to Jupyter as they are. For example, a
# headless server on a chosen port with a fixed token:
#   make notebook NOTEBOOK_ARGS="--no-browser --ServerApp.ip=0.0.0.0 --ServerApp.port=8899 \
#     --IdentityProvider.token=SECRET"
NOTEBOOK_ARGS ?=
# nbval's sanitizing patterns: the notebooks' own file, else the one the package ships.
SANITIZE := $(firstword $(wildcard notebooks/sanitize.cfg eagerkernel/resources/nbval_sanitize.cfg))

STAMP := $(VENV)/.stamp
KERNELSPEC := $(VENV)/share/jupyter/kernels/eager/kernel.json
TORCH_STAMP := $(VENV)/.stamp-torch
TF_STAMP := $(VENV)/.stamp-tensorflow

# Jupyter finds the venv's kernelspecs before a user's, and kernels start the venv's python.
# Matplotlib keeps its font cache in the venv: a cache shared in ~/.cache with another
# environment (same matplotlib version, other font paths) makes plots log "findfont" to stderr.
VENV_ENV := PATH="$(abspath $(VENV))/bin:$$PATH" JUPYTER_PREFER_ENV_PATH=1 \
  MPLCONFIGDIR="$(abspath $(VENV))/mplconfig"
ALLOW_ROOT := $(if $(filter 0,$(shell id -u 2>/dev/null)),--allow-root)

.PHONY: help setup system-packages tutorials notebook lab test lint format bench fuzz clean distclean

help:
	@echo "make tutorials   set up, then run the tutorial notebooks (HTML in build/tutorials)"
	@echo "make test        set up, then lint, unit tests + doctests, notebook tests (nbval)"
	@echo "make notebook    set up, then open Jupyter Notebook on notebooks/ (NOTEBOOK_ARGS=...)"
	@echo "make lab         the same in JupyterLab"
	@echo "make bench       set up (+ PyTorch CPU; WITH_TF=1 adds TensorFlow), run benchmarks"
	@echo "make fuzz        set up, then run the fuzzers long (FUZZ_EXAMPLES per fuzzer)"
	@echo "make lint        ruff check + ruff format --check;  make format: apply both"
	@echo "make setup       Debian data packages, $(VENV), editable install, Eager kernelspec"
	@echo "make clean       remove build/ and caches;  make distclean: also $(VENV)"

# ---------------------------------------------------------------------------- set-up
setup: system-packages $(STAMP) $(KERNELSPEC)

# Optional data: a machine without apt (or not root) still sets up, with a warning.
system-packages:
	@command -v dpkg-query >/dev/null 2>&1 \
	  || { echo "note: not a Debian system; skipping $(DEB_PACKAGES)"; exit 0; }; \
	missing=""; \
	for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null | grep -q "install ok installed" \
	    || missing="$$missing $$p"; \
	done; \
	[ -n "$$missing" ] || exit 0; \
	if [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then \
	  echo "warning: Debian packages missing:$$missing (install them as root to use them)"; \
	  exit 0; \
	fi; \
	echo "==> apt-get install$$missing"; \
	export DEBIAN_FRONTEND=noninteractive; \
	if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing; }; \
	then echo "warning: could not install$$missing; carrying on without it"; fi

$(STAMP): pyproject.toml setup.py $(wildcard eagerkernel/runtime/native/*.c)
	@test -x $(PY) || { echo "==> $(PYTHON) -m venv $(VENV)"; $(PYTHON) -m venv $(VENV); }
	@echo "==> pip install -e .[test,datasets,notebook,distributed]"
	$(PY) -m pip install --quiet --progress-bar off -e ".[test,datasets,notebook,distributed]"
	@touch $@

KERNEL_SOURCES := $(wildcard eagerkernel/__main__.py eagerkernel/kernel.py eagerkernel/resources/*)
$(KERNELSPEC): $(STAMP) $(KERNEL_SOURCES)
	@echo "==> python -m eagerkernel install --sys-prefix"
	$(VENV_ENV) $(PY) -m eagerkernel install --sys-prefix
	@test -f $@ || { echo "error: the install did not create $@"; exit 1; }
	@touch $@

# Peers for the benchmark only; a failed install leaves the benchmark without that column.
$(TORCH_STAMP): $(STAMP)
	@echo "==> pip install torch==$(TORCH_VERSION) (CPU build)"
	@if $(PY) -m pip install --quiet --progress-bar off "torch==$(TORCH_VERSION)"; \
	then touch $@; else echo "warning: no PyTorch; the benchmark runs without it"; fi
	@$(PY) -m pip install --quiet --progress-bar off numexpr \
	  || echo "warning: no numexpr; benchmarks/elementwise.py runs without its column"

$(TF_STAMP): $(STAMP)
	@echo "==> pip install tensorflow-cpu"
	@if $(PY) -m pip install --quiet --progress-bar off tensorflow-cpu; \
	then touch $@; else echo "warning: no TensorFlow; the benchmark runs without it"; fi

# ---------------------------------------------------------------------------- use
tutorials: setup
	@[ -n "$(NOTEBOOKS)" ] || { echo "error: none of the tutorials is in notebooks/"; exit 1; }
	@mkdir -p build/tutorials
	env -u MPLBACKEND $(VENV_ENV) jupyter nbconvert --to html --execute \
	  --ExecutePreprocessor.kernel_name=eager --output-dir build/tutorials $(NOTEBOOKS)
	@echo "make tutorials: OK, $(words $(NOTEBOOKS)) notebooks ran; HTML in build/tutorials/"

notebook: setup
	$(VENV_ENV) jupyter notebook --ServerApp.root_dir=notebooks $(ALLOW_ROOT) $(NOTEBOOK_ARGS)

lab: setup
	$(VENV_ENV) jupyter lab --ServerApp.root_dir=notebooks $(ALLOW_ROOT) $(NOTEBOOK_ARGS)

BENCHMARKS := op_overhead input_pipeline training_step conv distributed elementwise function random_ops
bench: setup $(TORCH_STAMP) $(if $(WITH_TF),$(TF_STAMP))
	@for b in $(BENCHMARKS); do \
	  echo "==> benchmarks/$$b.py"; \
	  $(VENV_ENV) TF_CPP_MIN_LOG_LEVEL=3 $(PY) benchmarks/$$b.py $(BENCH_ARGS) || exit 1; \
	  echo; \
	done

# ---------------------------------------------------------------------------- checks
# The op and checkpoint fuzzers (hypothesis) with FUZZ_EXAMPLES examples each, new random ones
# every run; the default takes about ten minutes on two idle cores (22 min measured on two
# busy ones, clean). `make test` runs a brief, fixed set of examples of the same fuzzers.
FUZZ_EXAMPLES ?= 15000
fuzz: setup
	env MPLBACKEND=Agg EAGERKERNEL_FUZZ=long EAGERKERNEL_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) \
	  $(PY) -m pytest -p no:xdist -q tests/fuzz

lint: setup
	$(VENV_ENV) ruff check $(LINT_PATHS)
	$(VENV_ENV) ruff format --check $(LINT_PATHS)

format: setup
	$(VENV_ENV) ruff format $(LINT_PATHS)
	$(VENV_ENV) ruff check --fix $(LINT_PATHS)

# Counts passed / failed / skipped test cases in the JUnit files of this run.
define SUMMARY_PY
import glob, os, sys, xml.etree.ElementTree as ET
total = [0, 0, 0]
for path in sorted(glob.glob("build/test-results/*.xml"), key=os.path.getmtime):
    counts = [0, 0, 0]
    for case in ET.parse(path).getroot().iter("testcase"):
        tags = {child.tag for child in case}
        counts[1 if tags & {"failure", "error"} else 2 if "skipped" in tags else 0] += 1
    total = [t + c for t, c in zip(total, counts)]
    name = os.path.basename(path)[:-4]
    print(f"  {name:<18}{counts[0]} passed, {counts[1]} failed, {counts[2]} skipped")
print(f"{sys.argv[1]}\ntotal: {total[0]} passed, {total[1]} failed, {total[2]} skipped")
endef
export SUMMARY_PY

# Every step runs even when an earlier one fails; the summary names the failed ones and the
# exit status is non-zero if any did. Notebooks run without MPLBACKEND=Agg: their kernels draw
# inline, as in Jupyter, so their outputs match the saved ones.
test: setup
	@export $(VENV_ENV); \
	results=build/test-results; rm -rf "$$results"; mkdir -p "$$results"; \
	failed=""; notes=""; \
	step() { local name=$$1; shift; printf '\n==> %s: %s\n' "$$name" "$$*"; \
	  "$$@" || { echo "--> $$name FAILED (exit $$?)"; failed="$$failed, $$name"; }; }; \
	step "ruff check" ruff check $(LINT_PATHS); \
	step "ruff format" ruff format --check $(LINT_PATHS); \
	step "unit tests + doctests" env MPLBACKEND=Agg $(PY) -m pytest $(XDIST) \
	  --junitxml="$$results/unit+doctests.xml" tests eagerkernel; \
	if [ -n "$(NOTEBOOKS)" ]; then \
	  step "notebooks" env -u MPLBACKEND $(PY) -m pytest -p no:xdist --nbval \
	    --nbval-kernel-name eager $(if $(SANITIZE),--nbval-sanitize-with $(SANITIZE)) \
	    --junitxml="$$results/notebooks.xml" $(NOTEBOOKS); \
	else notes=" (no notebooks/*.ipynb to run)"; fi; \
	printf '\n==> make test summary\n'; \
	if [ -z "$$failed" ]; then status="make test: OK$$notes"; \
	else status="make test: FAILED in $${failed#, }$$notes"; fi; \
	$(PY) -c "$$SUMMARY_PY" "$$status"; \
	[ -z "$$failed" ]

clean:
	rm -rf build .ruff_cache .pytest_cache .hypothesis
	find $(wildcard eagerkernel tests benchmarks) -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV) *.egg-info
