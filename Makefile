# Parley: `make run` serves the app, `make test` runs every test. Both set up what is missing.
SHELL := /bin/bash
.DEFAULT_GOAL := help

GO       ?= go
BIN      := bin/parley
PGCTL    := db/localpg.sh
VENDOR   := static/vendor/htmx.min.js static/vendor/sse.js static/vendor/icons.svg
# The icons views.Icon may draw: lucide-static's file names, built into one sprite of <symbol>s.
ICONS    := menu users trash-2 pencil thumbs-up thumbs-down wrench brain copy arrow-down send square \
            lock sparkles chevron-down bot ellipsis-vertical rotate-ccw plus x
CSS      := static/css/app.css
TEMPL_GO := $(patsubst %.templ,%_templ.go,$(wildcard views/*.templ))

.PHONY: help run build assets generate test faults bench lint db-start db-stop chromium clean

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

static/vendor/htmx.min.js: node_modules/.installed
	@mkdir -p static/vendor
	cp node_modules/htmx.org/dist/htmx.min.js $@

static/vendor/sse.js: node_modules/.installed
	@mkdir -p static/vendor
	cp node_modules/htmx-ext-sse/dist/sse.min.js $@

# One SVG sprite of the ICONS from npm's lucide-static (ISC licence), served like htmx, never a CDN.
static/vendor/icons.svg: node_modules/.installed Makefile
	@mkdir -p static/vendor
	@{ echo '<svg xmlns="http://www.w3.org/2000/svg"><!-- lucide-static (ISC licence): $(ICONS) -->'; \
	  for i in $(ICONS); do \
	    f=node_modules/lucide-static/icons/$$i.svg; [ -f $$f ] || { echo "no icon $$i in lucide-static" >&2; exit 1; }; \
	    echo "<symbol id=\"$$i\" viewBox=\"0 0 24 24\" fill=\"none\" stroke=\"currentColor\" stroke-width=\"2\" stroke-linecap=\"round\" stroke-linejoin=\"round\">"; \
	    sed -n 's/^  \(<.*\)/\1/p' $$f; echo '</symbol>'; \
	  done; echo '</svg>'; } > $@.tmp && mv $@.tmp $@
	@echo "built $@ ($(words $(ICONS)) icons)"

$(TEMPL_GO): views/%_templ.go: views/%.templ
	$(GO) tool templ generate -path views

generate: ## Regenerate templ code
	$(GO) tool templ generate -path views

$(CSS): node_modules/.installed static/css/input.css tailwind.config.js $(wildcard views/*.templ) $(wildcard static/js/*.js) $(wildcard handlers/*.go)
	npx --no-install tailwindcss -i static/css/input.css -o $@ --minify

assets: $(VENDOR) $(CSS) $(TEMPL_GO) ## Build CSS, copy htmx, generate templ code

build: assets ## Build bin/parley
	$(GO) build -o $(BIN) ./cmd/parley

db-start: ## Start the private PostgreSQL under .data/ (prints its DATABASE_URL)
	@$(PGCTL) start

db-stop: ## Stop the private PostgreSQL
	@$(PGCTL) stop

run: build ## Serve Parley on http://localhost:8080 (starts a private PostgreSQL unless DATABASE_URL is set)
	@if [ -z "$$DATABASE_URL" ]; then export DATABASE_URL=$$($(PGCTL) start) || exit 1; fi; \
	exec ./$(BIN) serve

chromium: ## Install Debian's chromium for the browser tests when missing
	@command -v chromium >/dev/null || { \
	  echo "installing chromium for the browser tests"; \
	  sudo=""; [ "$$(id -u)" -ne 0 ] && sudo=sudo; \
	  $$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq chromium >/dev/null; }

test: assets chromium ## Run every test against a real PostgreSQL and headless Chromium
	@url=$${PARLEY_TEST_DATABASE_URL:-$$($(PGCTL) start)} || exit 1; \
	PARLEY_TEST_DATABASE_URL=$$url $(GO) test -race -count=1 -timeout 20m ./...

faults: assets ## kill -9 an instance 100 times mid-POST and mid-answer (make test does 10 rounds)
	@url=$${PARLEY_TEST_DATABASE_URL:-$$($(PGCTL) start)} || exit 1; \
	PARLEY_TEST_DATABASE_URL=$$url PARLEY_FAULT_ROUNDS=100 $(GO) test -count=1 -timeout 30m -v \
	  -run 'TestKillNineNeverLosesNorDuplicatesMessages' ./handlers/ | grep -v '^=== RUN'

bench: assets ## Run the benchmarks once each, then print the chat engine's figures as a table
	@url=$${PARLEY_TEST_DATABASE_URL:-$$($(PGCTL) start)} || exit 1; mkdir -p test-artifacts; \
	set -o pipefail; PARLEY_TEST_DATABASE_URL=$$url $(GO) test -run '^$$' -bench . -benchmem -count=1 -timeout 30m ./... \
	  | tee test-artifacts/bench.txt; status=$$?; \
	awk -f handlers/testdata/engine-bench-table.awk test-artifacts/bench.txt; exit $$status

lint: node_modules/.installed ## gofmt, go vet, templ generate -check, OpenAPI lint (redocly recommended rules, swagger-parser)
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '_templ.go$$')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) tool templ generate -check -path views
	REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true npx --no-install redocly lint --extends=recommended --format=stylish handlers/openapi.json
	node scripts/validate-openapi.mjs handlers/openapi.json

clean: ## Remove build output (keeps .data/)
	rm -rf bin static/vendor $(CSS) node_modules
