# codemix: `make demo` and `make test` are the whole set-up. Both create .venv when it is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
DEMO_OUT := out/demo
# Beside the build, not in it: mix build refuses an --out that holds other files than a build's.
SDISTS := out/sdists

.PHONY: demo test lint clean dash-demo

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# torch first and pinned: 2.13.0 resolves to the CPU wheel; anything looser pulls GBs of CUDA packages.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

# Each sdist in its own pip call (pip refuses two versions of one package in a single resolve),
# four at a time; the crawl list names them for the demo spec.
$(SDISTS)/list.txt: examples/sdists.txt | $(VENV)/.installed
	mkdir -p $(SDISTS)
	grep -v '^#' examples/sdists.txt | grep . | xargs -P 4 -I{} \
		$(BIN)/pip download --quiet --no-binary :all: --no-deps --dest $(SDISTS) {}
	cd $(SDISTS) && ls *.tar.gz *.zip 2>/dev/null | sort > list.txt

demo: $(VENV)/.installed $(SDISTS)/list.txt
	STDLIB="$$($(BIN)/python -c 'import sysconfig; print(sysconfig.get_path("stdlib"))')" \
		$(BIN)/mix build examples/demo.yaml --out $(DEMO_OUT)

# The dashboard of the demo build, with synthetic training and RL results, and a Chromium screenshot.
dash-demo: $(VENV)/.installed
	test -f $(DEMO_OUT)/manifest.json || $(MAKE) demo
	command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium)
	$(BIN)/python -m codemix.dashboards.demo --build $(DEMO_OUT) --out out/dash

# The layers contract (pyproject.toml, [tool.importlinter]) first, on the installed layout
# (codemix/filters/...): an upward import fails in seconds.
test: $(VENV)/.installed-dev
	$(BIN)/python -m tests.layout
	$(BIN)/python -m pytest

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .

clean:
	rm -rf $(DEMO_OUT)
