# nmthpo: two commands for a newcomer -- `make book` and `make test`.
# Both create/refresh .venv from requirements.lock (exact versions; quick when nothing changed)
# and fetch + verify the data (from $NMTHPO_MIRROR when set, else the pinned upstream commit).

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: book test setup data lint unit notebooks html browser execute results bench openbox-crosscheck clean lock peers portability

setup: $(STAMP)

$(STAMP): pyproject.toml requirements.lock
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.lock
	$(PY) -m pip install --quiet --no-deps -e .
	$(PY) -m ipykernel install --sys-prefix --name python3 >/dev/null
	@touch $(STAMP)

# Other HPO libraries (the peers extra: SMAC3, HEBO, Nevergrad, hyperopt, scikit-optimize), at
# the pins of requirements-peers.lock, without their declared dependencies (HEBO's are wrong).
peers: $(STAMP)
	$(PY) -m pip install --quiet --no-deps -r requirements-peers.lock

data: $(STAMP)
	$(VENV)/bin/nmthpo data fetch

lint: $(STAMP)
	$(VENV)/bin/ruff format --check nmthpo tests benchmarks tools
	$(VENV)/bin/ruff check nmthpo tests benchmarks tools
	$(VENV)/bin/mypy nmthpo

unit: $(STAMP) data
	$(VENV)/bin/pytest -q tests

# nbval re-executes every executed chapter and compares its text outputs.
notebooks: $(STAMP) data
	$(VENV)/bin/pytest -q -p no:cacheprovider --nbval book/chapters \
		--nbval-sanitize-with book/nbval_sanitize.cfg --nbval-cell-timeout 600

# Build the HTML book from the executed chapters (no execution), warnings are errors.
html: $(STAMP)
	$(PY) tools/build_book.py html

browser: html
	$(PY) tools/browser_check.py

test: setup data lint unit notebooks browser

# Execute every chapter with papermill (published parameters) into book/chapters/.
execute: $(STAMP) data
	$(PY) tools/build_book.py execute

book: setup data execute html

# Recompute every cached experiment in results/ (long; see README): the grids of
# nmthpo/studies/grids.py. The only target that writes results/ (NMTHPO_WRITE_RESULTS=1).
# ONLY=single,pareto picks experiments; ONLY=peers (Chapter 9, needs `make peers`) is computed
# only when named. SCHEDULER=tcp://HOST:8786 sends the trials to a running Dask cluster.
results: $(STAMP) data
	NMTHPO_WRITE_RESULTS=1 $(PY) tools/make_results.py $(if $(ONLY),--only $(ONLY)) \
		$(if $(SCHEDULER),--scheduler $(SCHEDULER))

# Speed benchmarks; their printed figures are kept in results/benchmarks/ for the book.
BENCHES := bench_speed bench_gp bench_graph bench_ehvi bench_scoring bench_optuna bench_multifidelity \
	bench_refusals bench_cost bench_dask bench_lattice
bench: $(STAMP) data
	@mkdir -p results/benchmarks
	@for b in $(BENCHES); do \
		echo "== $$b"; \
		$(PY) benchmarks/$$b.py > results/benchmarks/$$b.txt.tmp || exit 1; \
		cat results/benchmarks/$$b.txt.tmp; \
		mv results/benchmarks/$$b.txt.tmp results/benchmarks/$$b.txt; \
	done

# Same rows under every BLAS kernel this CPU runs? By hand only: never in make test or CI
# (tools/portability.py; report in results/benchmarks/portability.txt).
portability: $(STAMP) data
	$(PY) tools/portability.py

clean:
	rm -rf book/_build

# Re-resolve pyproject.toml in a temporary venv and rewrite requirements.lock and environment.yml
# (then `make setup` installs the new pins). Outputs may change with new versions: re-run make book.
lock:
	$(PYTHON) tools/lock.py

# Cross-check TransBO against OpenBox's implementation, in a virtual environment of its own
# (OpenBox pins old scikit-learn/ConfigSpace); not part of `make test`.
openbox-crosscheck: $(STAMP) data
	test -x .venv-openbox/bin/python || ($(PYTHON) -m venv .venv-openbox && \
		.venv-openbox/bin/pip install --quiet openbox)
	$(PY) tools/openbox_crosscheck.py export --out results/openbox/ours.npz
	.venv-openbox/bin/python tools/openbox_crosscheck.py openbox --data results/openbox/ours.npz \
		--out results/openbox/theirs.npz
	$(PY) tools/openbox_crosscheck.py compare results/openbox/ours.npz results/openbox/theirs.npz \
		| tee results/openbox/crosscheck.txt
	$(PY) tools/seal_results.py
