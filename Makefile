# Set-up and entry points. `make lab` and `make test` are all a newcomer needs.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: lab test lint setup clean bench fuzz docs screenshots

setup: $(STAMP)

# Browser tests drive Debian's Chromium (Playwright never downloads a browser here);
# the graph view lays graphs out with Graphviz's `dot`.  The warm-up compiles the CPU
# backend's shared reductions once (about a minute), so first graphs do not wait for them.
SUDO := $(if $(filter 0,$(shell id -u)),,$(shell command -v sudo))
LABEXT_DIR := $(VENV)/share/jupyter/labextensions/nbgraph-labextension

# The editable install also builds the JupyterLab extension (npm, see pyproject.toml)
# and copies it into the venv; the link that replaces the copy makes `npm run build`
# in labextension/ take effect on the next page reload.  The link goes before pip runs
# again (set-up, `make bench`), or pip writes the copy through it into
# nbgraph/labextension (an install.json there breaks the next install: it is removed).
define unlink_labextension
	rm -rf $(LABEXT_DIR) nbgraph/labextension/install.json
endef
define link_labextension
	rm -rf $(LABEXT_DIR)
	ln -s $(CURDIR)/nbgraph/labextension $(LABEXT_DIR)
endef

$(STAMP): pyproject.toml labextension/package.json
	test -x /usr/bin/chromium && command -v dot >/dev/null || { $(SUDO) apt-get update -q && \
		$(SUDO) apt-get install -y -q chromium graphviz; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(unlink_labextension)
	$(PY) -m pip install -q -e ".[test,lab,cuda,dask,docs]"
	$(link_labextension)
	$(VENV)/bin/jupyter labextension list 2>&1 | grep -q "nbgraph-labextension.*enabled"
	$(PY) -m nbgraph.backend.numba_cpu.warmup
	touch $(STAMP)

test: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports
	$(PY) -m pytest -q -n auto --dist loadfile

# The documentation site (docs/, settings in docs/conf.py) into docs/_build/html, warnings
# as errors. The notebooks and the error catalogue run while it builds (a few minutes).
docs: $(STAMP)
	$(PY) -m sphinx -W --keep-going -E -j auto -b html docs docs/_build/html

# The README's pictures: the browser tests in JupyterLab, saving their screenshots.
screenshots: $(STAMP)
	NBGRAPH_SCREENSHOTS=$(CURDIR)/docs/screenshots $(PY) -m pytest -q -n auto --dist loadfile \
		tests/browser -k lab

# Random programs, eager against graph mode; failing ones go to tests/fuzz/regressions/.
fuzz: $(STAMP)
	$(PY) tests/fuzz/run.py --n $(or $(N),1000)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports

# JupyterLab refuses to run as root without --allow-root (containers often run as root).
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)

lab: $(STAMP)
	$(VENV)/bin/jupyter lab --ip=127.0.0.1 --notebook-dir=notebooks \
		--LabApp.default_url=/lab/tree/tour.ipynb $(ROOT_FLAG)

# Writes bench/results.json (and bench/results_gpu.json where there is a GPU), then the
# README's Performance tables from them. The vectorized kernels alone, in a few minutes:
# `.venv/bin/python bench/run.py --only vectorized` (or bench/vectorized.py).
bench: $(STAMP)
	$(unlink_labextension)
	$(PY) -m pip install -q -e ".[bench]"
	$(link_labextension)
	$(PY) bench/run.py
	$(PY) bench/gpu.py
	$(PY) bench/report.py

clean:
	rm -rf $(VENV)
