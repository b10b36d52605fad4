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

# The node tier first and alone (its node changes the host's network rules), then every other test
# on TEST_WORKERS processes: a test file's tests on one, the cluster tier's on one (they share its
# control plane and the host's pod address range).
TEST_WORKERS ?= 2
test: venv
	$(PY) -m pytest tests/node; node=$$?; \
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadgroup --ignore=tests/node; rest=$$?; \
	[ $$node -eq 0 ] && [ $$rest -eq 0 ]

# Not part of `make test`: through the real engine, minutes per size (see scripts/bench/).
bench: venv tools
	$(PY) -m pip install -q -r requirements-bench.txt
	$(PY) -m scripts.bench $(ARGS)

lint: venv
	$(PY) -m ruff check components tests scripts __main__.py
	$(PY) -m mypy
