# FilterGraph — the two commands a fresh Debian 12 machine needs (see README.md):
#   make demo   install what is missing, build fgrun (release) and run a recipe on the shipped sample
#   make test   install what is missing and run the whole test suite
#   make bench  fgrun against libvips, ImageMagick, GraphicsMagick, Pillow and OpenCV (bench/README.md)
.PHONY: demo test deps release bench docs clean

DEMO_RECIPE ?= recipes/thumbnail.txt
DEMO_INPUT  ?= samples/flower.jpg
DEMO_OUTPUT ?= out/flower-thumbnail.png
FGRUN       := .build/release/fgrun

deps:
	@bash scripts/install-deps.sh

# --static-swift-stdlib: the Swift runtime and Foundation are linked in, so a run starts in ~7 ms
# of CPU instead of ~17 ms (no loading and relocating of the Swift shared libraries).
release: deps
	swift build -c release --static-swift-stdlib --product fgrun

demo: release
	@mkdir -p $(dir $(DEMO_OUTPUT))
	$(FGRUN) --stats $(DEMO_RECIPE) $(DEMO_INPUT) $(DEMO_OUTPUT)
	@echo "demo: wrote $(abspath $(DEMO_OUTPUT)) from $(DEMO_INPUT) with $(DEMO_RECIPE)"
	@echo "demo: try another recipe: $(FGRUN) recipes/sepia-vintage.txt $(DEMO_INPUT) out/flower-vintage.jpg"

test: deps
	swift build --build-tests
	swift test --skip-build --disable-swift-testing

# Regenerates docs/Filters.md from `fgrun filters` (tests fail while it is stale).
docs:
	bash scripts/gen-filter-docs.sh

bench: release
	bash bench/compare.sh $(BENCH_ARGS)

clean:
	rm -rf .build out
