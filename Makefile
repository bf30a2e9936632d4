# Two commands on a fresh machine: `make demo` and `make test`. Both build the virtual environment first.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# `make test`: the suite on one pytest-xdist worker per core; e.g. `make test TEST_WORKERS=1`, or
# `make test PYTEST_ARGS="tests/gateway --durations=20"` for a part of it.
TEST_WORKERS ?= auto
PYTEST_ARGS ?=
# The docs site's strict build (`make docs`, also run by `make lint` and `make test`); NO_MKDOCS_2_WARNING quiets
# Material's banner about MkDocs 2.
MKDOCS_BUILD := NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet -f docs/mkdocs.yml
# pyproject.toml's import contracts with those generated from the installed games (services/rules/import_contracts.py)
IMPORT_CONTRACTS := $(VENV)/import-contracts.toml

.PHONY: demo test bench lint docs schemas clean browser

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(PY) -m services.cli demo

# The web client's browser tests drive Debian's headless Chromium with its driver: installed here when missing
# and this runs as root with apt; otherwise a loud message (the tests then say they did not run, and fail when
# THRONE_REQUIRE_BROWSER=1, as in CI).
browser:
	@if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "Installing Debian's chromium and chromium-driver (the web client's browser tests)"; \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null \
		|| { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; } \
		|| echo "!! NO BROWSER: apt-get could not install chromium and chromium-driver; the browser tests will NOT run."; \
	else \
		echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"; \
		echo "!! NO BROWSER: /usr/bin/chromium and /usr/bin/chromedriver are missing, and they can not be"; \
		echo "!! installed from here (needs root and apt). Run: apt-get install chromium chromium-driver"; \
		echo "!! The web client's browser tests (tests/gateway/test_web.py) will NOT run."; \
		echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"; \
	fi

test: $(STAMP) browser
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m services.rules.import_contracts $(IMPORT_CONTRACTS)
	$(VENV)/bin/lint-imports --config $(IMPORT_CONTRACTS)
	$(MKDOCS_BUILD)
	$(PY) -m pytest -n $(TEST_WORKERS) --dist worksteal $(PYTEST_ARGS)

bench: $(STAMP)
	$(PY) -m services.bench

lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m services.rules.import_contracts $(IMPORT_CONTRACTS)
	$(VENV)/bin/lint-imports --config $(IMPORT_CONTRACTS)
	$(MKDOCS_BUILD)

# The docs site (docs/mkdocs.yml), built strictly: a broken link or anchor fails the build. Into build/docs-site/.
docs: $(STAMP)
	$(MKDOCS_BUILD)

schemas: $(STAMP)
	$(PY) -m services.rules.schemas

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis build/docs-site
