# moonriver-env developer tasks. Every target that needs the virtualenv creates it
# (and installs what it needs) on first use; stamp files keep re-runs fast.

VENV ?= .venv
EXTRAS ?= all
TORCH_VERSION ?= 2.13.0
# Where torch comes from: empty for the configured index; the CPU build from PyTorch's index with
# `make install-all TORCH_INDEX=https://download.pytorch.org/whl/cpu` (stock PyPI's Linux
# wheel is the CUDA build).
TORCH_INDEX ?=
TORCH_PIP = $(PIP) install torch==$(TORCH_VERSION) $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)

BIN := $(VENV)/bin
PIP := $(BIN)/pip
PY := $(BIN)/python

comma := ,
# Extras that pull in torch: the pinned CPU wheel must be installed before them.
TORCH_EXTRAS := train all

VENV_STAMP := $(VENV)/.venv.stamp
INSTALL_STAMP := $(VENV)/.install-$(subst $(comma),-,$(EXTRAS)).stamp

.PHONY: venv install install-all run test bench bench-vector wheel-check lint format clean browser docs docs-serve play

venv: $(VENV_STAMP)

$(VENV_STAMP):
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	touch $@

install: $(INSTALL_STAMP)

# The native core (setup.py builds moonriver_env/_core into moonriver_env._native): a change of
# its C sources reinstalls, which rebuilds the extension.
CORE_SOURCES := setup.py $(wildcard moonriver_env/_core/*.c moonriver_env/_core/*.h)

$(INSTALL_STAMP): pyproject.toml $(VENV_STAMP) $(wildcard moonriver_env/__init__.py) $(CORE_SOURCES)
	$(if $(filter $(TORCH_EXTRAS),$(subst $(comma), ,$(EXTRAS))),$(TORCH_PIP))
	$(PIP) install -e '.[$(EXTRAS)]'
	touch $@

install-all: $(VENV_STAMP)
	$(TORCH_PIP)
	$(MAKE) install EXTRAS=all

# The main job: the short az run (training/configs/az_short.toml: 6,000 heuristic games played
# in the native core as the warm start, then 280 iterations of 512 self-play games in the core:
# a fixed amount of work, so its model does not hang on the machine's load), then the
# evaluation of the model it ends with against the baseline ladder (random, greedy, heuristic;
# 100 games each: table printed, learning_curve.png in the run dir). PPO trains with
# `python -m training.ppo.ppo` (docs/training.md). `make run FULL=1`: the 2-player recipe
# (training/configs/az_2p.toml) within a 60-minute budget.
RUN_STAMP := $(shell date +%Y%m%d-%H%M%S)
run: install
	$(PY) -m training.az --config training/configs/$(if $(FULL),az_2p,az_short).toml --run-dir runs/az-$(if $(FULL),full,short)-$(RUN_STAMP)$(if $(FULL), --set run.max_minutes=60 --set eval.every=4)

# All three checks run even when one fails (each one's findings are shown); the target fails
# if any did.
test: install
	@status=0; \
	$(PY) -m pytest -q -n 2 || status=1; \
	$(BIN)/ruff check moonriver_env agents training tests || status=1; \
	$(BIN)/mypy moonriver_env agents training || status=1; \
	exit $$status

# Headless Chromium for the browser tests of the replays and of the web app (tests/replay,
# tests/serve): Debian's chromium and chromium-driver. Idempotent; apt-get needs root (CI runs
# as root), else sudo is used.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
browser:
	@if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then \
		echo "browser: $$(chromium --version 2>/dev/null)"; \
	else \
		$(SUDO) apt-get update && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
			chromium chromium-driver; \
	fi

# The documentation site (mkdocs.yml) into site/, strictly: a broken link, a missing reference
# or any warning fails. `make docs-serve` serves it at http://127.0.0.1:8000 while editing.
docs: install
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

docs-serve: install
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve

# Play in the browser (python -m agents.serve): the page at http://127.0.0.1:8000, opened in
# the browser; `make play PORT=8080` picks another port.
PORT ?= 8000
play: install
	$(PY) -m agents.serve --port $(PORT)

bench: install
	$(PY) -m moonriver_env.bench

bench-vector: install
	$(PY) -m moonriver_env.bench_vector

# A wheel from `python -m build`, installed into a fresh virtualenv, passes a smoke test.
wheel-check: install
	.ci/check_wheel.sh $(PY)

lint: install
	$(BIN)/ruff check moonriver_env agents training tests
	$(BIN)/ruff format --check moonriver_env agents training tests

format: install
	$(BIN)/ruff format moonriver_env agents training tests
	$(BIN)/ruff check --fix moonriver_env agents training tests

clean:
	rm -rf $(VENV) build dist site *.egg-info .pytest_cache .mypy_cache .ruff_cache
	rm -f moonriver_env/_native*.so
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
