# Two commands on a fresh machine (Python 3.11+, Java 17+):  make demo  and  make test
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.installed

.PHONY: demo test test-fast lint bench docs java clean

# Spark (PySpark) needs Java 17 or newer.
java:
	@v=$$(java -version 2>&1 | sed -nE 's/.*version "([0-9]+).*/\1/p' | head -n 1); \
	if [ -z "$$v" ] || [ "$$v" -lt 17 ]; then \
	  echo "Java 17 or newer is needed (Spark runs on it); found: $${v:-none}."; \
	  echo "Install it with:  sudo apt-get install -y openjdk-17-jre-headless"; \
	  exit 1; \
	fi

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	@touch $@

# The engines compiled ahead of time, as a wheel ships them (shedding/jit.py, "The shipped engines"),
# again after any edit below the CLI: one compile, on every core, instead of one per test process
ENGINES = shedding/_engines/.built
ENGINE_SOURCES = shedding/cli/engines.py $(shell find shedding -name '*.py' -not -path 'shedding/cli/*' \
                 -not -path 'shedding/streaming/*' -not -path 'shedding/studies/*')
$(ENGINES): $(STAMP) $(ENGINE_SOURCES)
	$(BIN)/python -m shedding.cli.engines shedding/_engines
	@touch $@

# The main job on embedded defaults: the quick suite on embedded Spark, with its HTML report.
demo: java $(ENGINES)
	rm -rf out/demo
	$(BIN)/shed compare --suite quick --out out/demo

# The static checks (pyproject.toml: [tool.ruff], [tool.mypy]): ruff on the repository, mypy on the
# package (a few seconds once .mypy_cache is warm; about 20 s cold)
lint: $(STAMP)
	$(BIN)/ruff check --quiet .
	$(BIN)/mypy

# The full suite on TEST_WORKERS processes (pytest-xdist), each test module whole on one of them
# (--dist loadfile), so a module still shares one Spark session; 2 workers start 2 JVMs, which
# is why the default is not every core.
TEST_WORKERS ?= 2
test: java lint $(ENGINES)
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile

# Without Spark and the slow tests, on every core (pytest-xdist): under 3 minutes on 2 cores, for the
# edit-test loop.
test-fast: lint $(ENGINES)
	$(BIN)/python -m pytest -q -n auto -m "not spark and not slow"

# The documentation site (MkDocs, Material theme), checked as the tests check it; open out/site/index.html
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir out/site

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_engine.py

clean:
	rm -rf $(VENV) out shedding/_engines .pytest_cache .hypothesis .mypy_cache .ruff_cache
