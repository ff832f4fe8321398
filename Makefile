# hensachi — see README.md. Every target works on a fresh checkout.
GO        ?= go
RAW_DIR   ?=
DATASET   ?= data/dataset.arrow
BIN       := bin/hensachi

export RAW_DIR

.PHONY: all build ingest fetch serve runtime turbojpeg models noface lighthouse test soak bench bench-go fuzz vet clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/hensachi

# The dataset is rebuilt when the code or the manifest changes; `make ingest` always rebuilds it.
ingest: build
	$(BIN) ingest -out $(DATASET)

$(DATASET): $(shell find ingest compute dataset -name '*.go' -not -name '*_test.go') ingest/sources.json
	$(BIN) ingest -out $(DATASET)

# Builds what is missing (binary, dataset) and starts the server on the embedded store, at
# http://localhost:8080, with the development login (an embedded identity provider that accepts any
# address; refused with a real -oidc-* configuration). DEV_LOGIN=false turns it off.
DEV_LOGIN ?= true
serve: build runtime turbojpeg models $(DATASET)
	$(BIN) serve -dev-login=$(DEV_LOGIN) -dataset $(DATASET) -models $(MODELS_DIR)

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
MODELS_DIR ?= models
# The trained attractiveness and age-gender models are committed (face/models/attractiveness.json,
# attributes.json) and copied into the bundle. Where their datasets are present, training is re-run
# once per committed model to check that it reproduces the file.
SCUT_FBP5500 ?= ../shared/datasets/scut-fbp5500
UTKFACE      ?= ../shared/datasets/utkface-train
export SCUT_FBP5500 UTKFACE
models: build runtime
	$(GO) run ./cmd/assemble-models -out $(MODELS_DIR)
	cp face/models/attractiveness.json face/models/attributes.json $(MODELS_DIR)/
	@if [ -d "$(SCUT_FBP5500)" ]; then $(MAKE) --no-print-directory $(MODELS_DIR)/.attractiveness-reproduced; \
	else echo "models: $(SCUT_FBP5500) absent; not re-checking the attractiveness model"; fi
	@if [ -d "$(SCUT_FBP5500)" ] && [ -d "$(UTKFACE)" ]; then $(MAKE) --no-print-directory $(MODELS_DIR)/.attributes-reproduced; \
	else echo "models: $(UTKFACE) or $(SCUT_FBP5500) absent; not re-checking the age-gender model"; fi

$(MODELS_DIR)/.attractiveness-reproduced: face/models/attractiveness.json
	$(BIN) train-score -check -models $(MODELS_DIR) -out face/models/attractiveness.json
	touch $@

$(MODELS_DIR)/.attributes-reproduced: face/models/attributes.json
	nice $(BIN) train-attrs -check -models $(MODELS_DIR) -out face/models/attributes.json
	touch $@

vet:
	$(GO) vet ./...

# The photos without people of the false-face test, from Debian packages (scripts/fetch-noface.sh).
noface:
	scripts/fetch-noface.sh

# Lighthouse from npm, for the audits of the pages (serve.TestLighthouse).
LIGHTHOUSE_VERSION := 12.8.2
LIGHTHOUSE := build/lighthouse/node_modules/lighthouse/cli/index.js
lighthouse: $(LIGHTHOUSE)
$(LIGHTHOUSE):
	mkdir -p build/lighthouse
	npm install --prefix build/lighthouse --no-audit --no-fund --loglevel=error lighthouse@$(LIGHTHOUSE_VERSION)

# The models' evaluations on thousands of images (testenv.Evaluation): skipped under -race, run
# in a second pass without it.
EVALUATIONS := TestCommittedModelOnHeldOut|TestCommittedModelOnTestSplit

# The browser tests keep a screenshot of every page they visit here, as test artefacts.
SCREENSHOT_DIR ?= $(CURDIR)/build/screenshots
export SCREENSHOT_DIR

test: vet noface lighthouse
	mkdir -p $(SCREENSHOT_DIR)
	$(GO) test -race -count=1 -timeout 20m ./...
	$(GO) test -count=1 -run '^($(EVALUATIONS))$$' ./face/...

# The reliability tests, SOAK times longer than in `make test`, without the race detector (as
# production runs), against a throwaway PostgreSQL cluster (scripts/test-postgres.sh).
SOAK ?= 10
RELIABILITY := TestUploadFloodMemory|TestKilledReplicaUnitsComeBack|TestReplicasKeepLimitExact|TestOverwriteInPlaceUnderLoad|TestDailyLimitExactUnderConcurrency
soak: runtime models
	scripts/test-postgres.sh env HENSACHI_SOAK=$(SOAK) $(GO) test -count=1 -timeout 2h -v -run '^($(RELIABILITY))$$' ./cmd/hensachi ./serve

bench: bench-go
	scripts/bench-town.sh

bench-go: runtime turbojpeg models
	$(GO) test -run '^$$' -bench . -benchmem ./compute/... ./dataset/...
	$(GO) test -run '^$$' -bench Municipality -benchmem ./serve/
	$(GO) test -run '^$$' -bench Predict -benchtime 40x -benchmem ./serve/
	$(GO) test -run '^$$' -bench "Analyze|Decode|Resize" -benchtime 40x -benchmem ./face/

# Short fuzzing runs of every fuzz target; FUZZTIME=5m for longer ones.
FUZZTIME ?= 20s
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "fuzz $$pkg $$t"; $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 1s $$pkg || exit 1; \
	  done; \
	done

clean:
	rm -rf bin data/dataset.arrow data/ingest-report.txt
