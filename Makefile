# moonriver-env developer tasks. Every target that needs the virtualenv creates it
# (and installs what it needs) on first use; stamp files keep re-runs fast.

VENV ?= .venv
EXTRAS ?= all
TORCH_VERSION ?= 2.13.0
PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)

BIN := $(VENV)/bin
PIP := $(BIN)/pip
PY := $(BIN)/python

comma := ,
# Extras that pull in torch: the pinned CPU wheel must be installed before them.
TORCH_EXTRAS := train all

VENV_STAMP := $(VENV)/.venv.stamp
INSTALL_STAMP := $(VENV)/.install-$(subst $(comma),-,$(EXTRAS)).stamp

.PHONY: venv install install-all run test bench bench-vector wheel-check lint format clean

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
	$(if $(filter $(TORCH_EXTRAS),$(subst $(comma), ,$(EXTRAS))),$(PIP) install torch==$(TORCH_VERSION))
	$(PIP) install -e '.[$(EXTRAS)]'
	touch $@

install-all: $(VENV_STAMP)
	$(PIP) install torch==$(TORCH_VERSION)
	$(MAKE) install EXTRAS=all

# The main job: a short self-play training run (training/ppo/configs/default.toml, a few minutes),
# then the evaluation against the baseline ladder (table printed, plot saved in the run dir).
# `make run FULL=1`: the full 60-minute budget (training/ppo/configs/full.toml).
run: install
	$(PY) -m training.train $(if $(FULL),--full)

test: install
	$(PY) -m pytest -q -n 2
	$(BIN)/ruff check moonriver_env agents training tests
	$(BIN)/mypy moonriver_env agents training

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
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache
	rm -f moonriver_env/_native*.so
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
