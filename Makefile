# Set-up and entry points. `make lab` and `make test` are all a newcomer needs.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: lab test lint setup clean bench

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[test,lab]"
	touch $(STAMP)

test: $(STAMP)
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -q

lint: $(STAMP)
	$(VENV)/bin/ruff check .

# JupyterLab refuses to run as root without --allow-root (containers often run as root).
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)

lab: $(STAMP)
	$(VENV)/bin/jupyter lab --ip=127.0.0.1 --notebook-dir=notebooks $(ROOT_FLAG)

bench: $(STAMP)
	$(PY) -m pip install -q -e ".[bench]"
	$(PY) bench/run.py

clean:
	rm -rf $(VENV)
