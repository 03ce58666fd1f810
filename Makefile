# FilterGraph — the two commands a fresh Debian 12 machine needs (see README.md):
#   make demo   install what is missing, build fgrun (release) and run a recipe on the shipped sample
#   make test   install what is missing and run the whole test suite
#   make bench  fgrun against libvips, ImageMagick, GraphicsMagick, Pillow and OpenCV (bench/README.md)
.PHONY: demo test test-cluster test-tsan test-asan fuzz deps test-deps release bench docs documentation check-consumer clean

DEMO_RECIPE ?= recipes/thumbnail.txt
DEMO_INPUT  ?= samples/flower.jpg
DEMO_OUTPUT ?= out/flower-thumbnail.png
FGRUN       := .build/release/fgrun

deps:
	@bash scripts/install-deps.sh

# The test suite also reads files with independent decoders (vips, Pillow + NumPy, heif-convert).
test-deps:
	@bash scripts/install-deps.sh --tests
	@bash scripts/install-hdr-oracles.sh

# --static-swift-stdlib: the Swift runtime and Foundation are linked in, so a run starts in ~7 ms
# of CPU instead of ~17 ms (no loading and relocating of the Swift shared libraries).
release: deps
	swift build -c release --static-swift-stdlib --product fgrun

demo: release
	@mkdir -p $(dir $(DEMO_OUTPUT))
	$(FGRUN) --stats $(DEMO_RECIPE) $(DEMO_INPUT) $(DEMO_OUTPUT)
	@echo "demo: wrote $(abspath $(DEMO_OUTPUT)) from $(DEMO_INPUT) with $(DEMO_RECIPE)"
	@echo "demo: try another recipe: $(FGRUN) recipes/sepia-vintage.txt $(DEMO_INPUT) out/flower-vintage.jpg"

# The suite runs as one process a core, each taking the next test class (scripts/run-tests.sh);
# `swift test --skip-build --disable-swift-testing` runs the same tests one at a time.
test: test-deps
	swift build --build-tests
	bash scripts/run-tests.sh .build/debug
	$(MAKE) test-cluster

# The Dask cluster driver (cluster/) against a real scheduler and two workers on 127.0.0.1, with
# the debug fgrun that `swift build` made (about a minute).
test-cluster:
	@bash scripts/install-cluster-deps.sh
	FGRUN=$(CURDIR)/.build/debug/fgrun timeout 600 python3 -m unittest discover -s cluster/tests -v

# The sanitizers (CI runs both): the suite's classes are split between them by what each can
# find, so that together they run every class once at about the cost of one sanitized suite.
# ThreadSanitizer takes the code where threads meet: the library (FilterGraphTests: the renderer,
# caches, every filter on the worker pool), the server (ImageServerTests), fgrun's batches
# (BatchTests: files in flight, shared caches, the report; FaultTests: threads that cannot start,
# signals) and the codecs' parallel encoders. A data race is a bug even when the pixels come out
# right. FILTERGRAPH_SANITIZER tells the few tests that cannot run under a sanitizer to skip.
TSAN_SKIP := fgrunTests\.(?!BatchTests|FaultTests)|PixelBufferTests\.|ImageCodecsTests\.(?!JPEGParallelEncodeTests|PNGStreamEncoderTests|DeflateJoinTests|WebPAnimationWriterTests|OutputFileTests)
test-tsan: test-deps
	swift build --build-tests --sanitize=thread --scratch-path .build-tsan
	FILTERGRAPH_SANITIZER=thread bash scripts/run-tests.sh .build-tsan/debug '$(TSAN_SKIP)'

# AddressSanitizer, with UndefinedBehaviorSanitizer on the C shims (Swift's own checks cover the
# Swift code; -fsanitize=undefined reaches the C targets through -Xcc, its runtime is in ASan's),
# takes the code that reads bytes it did not write: every codec and its C shim (ImageCodecsTests,
# with the fuzzers' regression inputs), pixel storage (PixelBufferTests), fgrun end to end (each
# test's child fgrun is instrumented too), and every registered filter's kernels over tiles
# (FilterConformanceTests). ASAN_SKIP= runs the whole suite. Leak detection is off here:
# Foundation's Data(contentsOf:) and XCTest leak on their own; the fuzzers (make fuzz) check the
# codecs for leaks.
ASAN_SKIP := (?:FilterGraphTests|ImageServerTests)\.(?!FilterConformanceTests$$)
test-asan: test-deps
	swift build --build-tests --sanitize=address -Xcc -fsanitize=undefined -Xcc -fno-sanitize-recover=undefined --scratch-path .build-asan
	ASAN_OPTIONS=detect_leaks=0 FILTERGRAPH_SANITIZER=address bash scripts/run-tests.sh .build-asan/debug '$(ASAN_SKIP)'

# libFuzzer over every decoder, the metadata parsers, the recipe compiler and the deflate walker:
# FUZZ_SECONDS per target (default 180); fails on any crash, leak or timeout (scripts/fuzz.sh).
fuzz: deps
	bash scripts/fuzz.sh

# Regenerates docs/Filters.md from `fgrun filters` (tests fail while it is stale).
docs:
	bash scripts/gen-filter-docs.sh

# The DocC documentation of FilterGraph, ImageCodecs and PixelBufferModule as static sites in out/docs/ (README.md,
# Documentation, says how to open them).
documentation:
	mkdir -p out/docs
	for target in FilterGraph ImageCodecs PixelBufferModule; do \
	  swift package --allow-writing-to-directory out/docs generate-documentation --target $$target \
	    --disable-indexing --transform-for-static-hosting --hosting-base-path $$target --output-path out/docs/$$target || exit 1; \
	done

# A separate package depends on a clone of this one tagged 1.0.0, by version, and renders with it.
check-consumer:
	bash scripts/check-consumer.sh

bench: release
	bash bench/compare.sh $(BENCH_ARGS)

clean:
	rm -rf .build out
