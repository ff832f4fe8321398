# hensachi — see README.md and docs/development.md. Every target works on a fresh checkout.
GO        ?= go
RAW_DIR   ?=
DATASET   ?= data/dataset.arrow
BIN       := bin/hensachi

# bash with pipefail, so that a failing command piped into scripts/progress.sh fails its target.
SHELL       := bash
.SHELLFLAGS := -o pipefail -ec

export RAW_DIR

.PHONY: all build ingest fetch serve runtime turbojpeg models train-score train-attrs calibrate-ages hardcases noface lighthouse geojson-tools map-screenshots screenshots test test-all model-pass soak bench bench-go bench-face fuzz vet clean

all: build

# A first build compiles some 450 packages for two to three minutes on two cores: -v lists them and
# scripts/progress.sh turns that into a line every few seconds. arrow_json_stdlib has Arrow's JSON
# support use encoding/json rather than compiling goccy/go-json, 7% of the build's CPU, for
# a feature the server never calls.
build:
	$(GO) build -tags arrow_json_stdlib -v -o $(BIN) ./cmd/hensachi 2>&1 | scripts/progress.sh build

# The dataset is rebuilt when the code or the manifest changes; `make ingest` always rebuilds it.
ingest: build
	$(BIN) ingest -out $(DATASET)

$(DATASET): $(shell find ingest compute dataset geo topojson -name '*.go' -not -name '*_test.go') ingest/sources.json | build
	$(BIN) ingest -out $(DATASET)

# Builds what is missing (binary, runtime library, model bundle, dataset; one line per step, nothing
# trained) and starts the server on the embedded store, at http://localhost:8080, with the
# development login (an embedded identity provider that accepts any address; refused with a real
# -oidc-* configuration). DEV_LOGIN=false turns it off. A service whose inputs are missing stays
# off, with the reason (scripts/serve.sh).
DEV_LOGIN ?= true
serve:
	@DATASET=$(DATASET) MODELS_DIR=$(MODELS_DIR) MAKE="$(MAKE)" scripts/serve.sh -dev-login=$(DEV_LOGIN)

fetch: build
	$(BIN) fetch -raw $(or $(RAW_DIR),data/raw)

# ONNX Runtime's shared library for the face analysis, from npm onnxruntime-node (hash-checked).
runtime:
	scripts/fetch-onnxruntime.sh

# libjpeg-turbo's TurboJPEG library, which the face service loads at run time to decode JPEGs at the
# scale the detector needs (face/jpegscale.go): Debian's libturbojpeg0, installed when missing and
# make runs as root with apt-get, else a hint. Optional: without it JPEGs are decoded by image/jpeg at
# full resolution, and the tests of the scaled path skip (fail under CI=true).
turbojpeg:
	@if ldconfig -p 2>/dev/null | grep 'libturbojpeg\.so\.0 ' >/dev/null; then \
	  echo "turbojpeg: libturbojpeg.so.0 present"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  apt-get update && apt-get install -y libturbojpeg0; \
	else \
	  echo "turbojpeg: libturbojpeg.so.0 missing; apt-get install libturbojpeg0 for scaled JPEG decoding"; \
	fi

# The face-analysis model bundle (face/models/bundle.json) in $(MODELS_DIR): from MODELS_MIRROR, else
# ../shared/models, else npm or upstream; the gender-age model is converted from its MXNet checkpoint.
# The trained attractiveness and age-gender models are committed (face/models/attractiveness.json,
# attributes.json) and copied in; nothing is trained here (`make test-all` checks that training
# reproduces them, `make train-score` and `make train-attrs` train them again); copied only when they
# differ, so that a model pass already reading them (.ci/run starts it early) never sees one rewritten.
MODELS_DIR ?= models
models:
	$(GO) build -v -o bin/assemble-models ./cmd/assemble-models 2>&1 | scripts/progress.sh models
	bin/assemble-models -out $(MODELS_DIR)
	install -C -m 644 face/models/attractiveness.json face/models/attributes.json face/models/age_range.json $(MODELS_DIR)/

TRAIN_MODELS = $(GO) run ./cmd/train-models
# Training again writes the committed file and its card, and copies the file into the bundle that
# the server and the tests read.
train-score: runtime models
	$(TRAIN_MODELS) score -models $(MODELS_DIR) -out face/models/attractiveness.json
	cp face/models/attractiveness.json $(MODELS_DIR)/

train-attrs: runtime models
	nice $(TRAIN_MODELS) attrs -models $(MODELS_DIR) -out face/models/attributes.json
	cp face/models/attributes.json $(MODELS_DIR)/
	$(MAKE) calibrate-ages

# The age ranges of the age and gender model, from held-out faces analysed as the server does (a few
# CPU-minutes); train-attrs runs it after training.
calibrate-ages: runtime models
	nice $(TRAIN_MODELS) calibrate -models $(MODELS_DIR) -out face/models/age_range.json
	cp face/models/age_range.json $(MODELS_DIR)/

# The hard-case pictures' figures and card (face/models/hardcases.json, HARDCASES.md; about two
# CPU-minutes), measured again after a change to the detector or the models.
hardcases: runtime models noface
	nice $(TRAIN_MODELS) hardcases -models $(MODELS_DIR)

vet:
	$(GO) vet ./...

# The photos without people of the false-face test, from Debian packages (scripts/fetch-noface.sh).
noface:
	scripts/fetch-noface.sh

# Lighthouse from npm, for the audits of the pages (web/site.TestLighthouse).
LIGHTHOUSE_VERSION := 12.8.2
LIGHTHOUSE := build/lighthouse/node_modules/lighthouse/cli/index.js
lighthouse: $(LIGHTHOUSE)
$(LIGHTHOUSE):
	mkdir -p build/lighthouse
	npm install --prefix build/lighthouse --no-audit --no-fund --loglevel=error lighthouse@$(LIGHTHOUSE_VERSION)

# The GeoJSON export's second readers, from npm under build/geojson: @placemarkio/check-geojson
# (RFC 7946 validity), @turf/boolean-clockwise (the rings' winding) and Leaflet (the browser test's
# map, served from the disk), for export.TestGeoJSONSecondReader and web/site.TestGeoJSONMap.
GEOJSON_TOOLS := @placemarkio/check-geojson@0.1.14 @turf/boolean-clockwise@7.4.0 leaflet@1.9.4
geojson-tools:
	@if [ "$$(cat build/geojson/installed 2>/dev/null)" = "$(GEOJSON_TOOLS)" ]; then \
	  echo "geojson-tools: installed"; \
	else \
	  mkdir -p build/geojson && \
	  npm install --prefix build/geojson --no-audit --no-fund --loglevel=error $(GEOJSON_TOOLS) && \
	  echo "$(GEOJSON_TOOLS)" > build/geojson/installed; \
	fi

# The browser tests keep a screenshot of every page they visit here, as test artefacts.
SCREENSHOT_DIR ?= $(CURDIR)/build/screenshots
export SCREENSHOT_DIR

# The maps' browser test alone (web/site.TestBrowserMaps): its screenshots, map-1-national-1280.png
# among them, in $(SCREENSHOT_DIR).
map-screenshots:
	mkdir -p $(SCREENSHOT_DIR)
	HENSACHI_TEST_ALL=1 $(GO) test -count=1 -run '^TestBrowserMaps$$' ./web/site

# The README's pictures of the site at 1280 and 390 px, compressed into docs/images (Chromium,
# pngquant, optipng).
screenshots:
	GO=$(GO) scripts/readme-screenshots.sh

# The fast tier: unit, HTTP and golden-file tests, the real dataset, the SQLite store, the committed
# models on a small held-out sample. Tests of the slow tier skip (testenv.Slow).
test: vet runtime models noface
	$(GO) test -count=1 -timeout 15m ./...

# Everything, as CI runs it (.ci/run, inside scripts/test-postgres.sh for the database): vet, the
# fast tier and the slow one (HENSACHI_TEST_ALL=1: Chromium and Lighthouse, PostgreSQL, floods and
# soaks, fuzz seeds) under the race detector, and beside it, niced and without the race detector,
# the full model evaluations and the reproduction of the trained models (scripts/test-all.sh).
test-all: runtime models noface lighthouse geojson-tools
	mkdir -p $(SCREENSHOT_DIR)
	GO=$(GO) scripts/test-all.sh

# The model pass in full, and on success the stamp of its inputs (.ci/model-pass.sha256, to commit)
# with which CI skips a pass on unchanged inputs (scripts/model-pass.sh, scripts/model-inputs.sh).
model-pass: runtime models noface
	rc=$$(mktemp) && HENSACHI_MODEL_PASS=full scripts/model-pass.sh $$rc; \
	  [ "$$(cat $$rc)" = 0 ] && echo "$$(scripts/model-inputs.sh) passed $$(date -u +%F) $$(go version | cut -d' ' -f3)" >.ci/model-pass.sha256

# The reliability tests, SOAK times longer than in `make test`, without the race detector (as
# production runs), against a throwaway PostgreSQL cluster (scripts/test-postgres.sh).
SOAK ?= 10
RELIABILITY := TestUploadFloodMemory|TestKilledReplicaUnitsComeBack|TestReplicasKeepLimitExact|TestOverwriteInPlaceUnderLoad|TestDailyLimitExactUnderConcurrency
soak: runtime models
	scripts/test-postgres.sh env HENSACHI_TEST_ALL=1 HENSACHI_SOAK=$(SOAK) $(GO) test -count=1 -timeout 2h -v -run '^($(RELIABILITY))$$' ./cmd/hensachi ./serve

bench: bench-go bench-face
	scripts/bench-town.sh

# The face service against @vladmandic/human 3.3.6 (npm, WASM backend, in Node) on the same photos in
# one run (scripts/bench-face.sh; Human and its models are installed in build/human on first use).
bench-face: runtime turbojpeg models
	scripts/bench-face.sh

bench-go: runtime turbojpeg models noface
	$(GO) test -run '^$$' -bench . -benchmem ./compute/... ./dataset/...
	$(GO) test -run '^$$' -bench Municipality -benchmem ./serve/
	$(GO) test -run '^$$' -bench TownCalls -benchmem ./serve/
	$(GO) test -run '^$$' -bench SeriesLoad -benchtime 5000x ./serve/
	$(GO) test -run '^$$' -bench Predict -benchtime 40x -benchmem ./serve/
	$(GO) test -run '^$$' -bench "Analyze|Decode|Resize|Models|SecondLook" -benchtime 40x -benchmem ./face/

# Short fuzzing runs of every fuzz target; FUZZTIME=5m for longer ones.
FUZZTIME ?= 20s
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "fuzz $$pkg $$t"; HENSACHI_TEST_ALL=1 $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 1s $$pkg || exit 1; \
	  done; \
	done

clean:
	rm -rf bin data/dataset.arrow data/ingest-report.txt
