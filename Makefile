# `make up` deploys the default stack (render mode, no cluster); `make test` runs every test.
PY := .venv/bin/python
STACK ?= dev

.PHONY: venv tools up preview destroy test lint

venv: .venv/.installed
.venv/.installed: requirements.txt requirements-dev.txt
	python3 -m venv .venv
	$(PY) -m pip install -q -r requirements-dev.txt
	touch $@

tools:
	bash scripts/install-tools

up: venv tools
	$(PY) scripts/deploy.py up --stack $(STACK)

preview: venv tools
	$(PY) scripts/deploy.py preview --stack $(STACK)

destroy: venv tools
	$(PY) scripts/deploy.py destroy --stack $(STACK)

test: venv
	$(PY) -m pytest

lint: venv
	$(PY) -m ruff check components tests scripts __main__.py
	$(PY) -m mypy
