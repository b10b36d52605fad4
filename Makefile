# `make up` deploys the default stack (render mode, no cluster); `make test` runs every test.
PY := .venv/bin/python
STACK ?= dev
ARGS ?=

.PHONY: venv tools package up preview refresh destroy urns cancel status test lint bench

venv: .venv/.installed
.venv/.installed: requirements.txt requirements-dev.txt pyproject.toml
	python3 -m venv .venv
	$(PY) -m pip install -q -r requirements-dev.txt
	$(PY) -m pip install -q --no-deps --no-build-isolation -e .   # the `connectors` command in .venv/bin
	touch $@

tools:
	bash scripts/install-tools

# The component package as a plugin of the pulumi CLI on PATH, for programs in any language.
package: venv
	bash scripts/install-package

# The pulumi CLI on PATH (v3.274.0 or newer) when there is one; else scripts/install-tools builds it.
up preview refresh destroy urns cancel status: venv
	$(PY) -m components.app.command $@ --stack $(STACK) $(ARGS)

test: venv
	$(PY) -m pytest

# Not part of `make test`: through the real engine, minutes per size (see scripts/bench/).
bench: venv tools
	$(PY) -m pip install -q -r requirements-bench.txt
	$(PY) -m scripts.bench $(ARGS)

lint: venv
	$(PY) -m ruff check components tests scripts __main__.py
	$(PY) -m mypy
