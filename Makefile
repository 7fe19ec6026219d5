# The two quick-start commands: `make run` (build + the main job) and `make test` (build + tests).
# Both first install missing system packages (tools/deps.sh). Builds are quiet: one line each,
# their full output in <build folder>/build.log, printed only when the build fails.
# Everything else is CMake; this file only picks build folders and options.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
BUILD ?= build
TEST_BUILD ?= build-test
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60

# $(call quietly,FOLDER,WHAT,COMMANDS): runs COMMANDS with their output in FOLDER/build.log.
quietly = @mkdir -p $(1) && echo "building $(2) in $(1)/ (log: $(1)/build.log)" && \
	{ $(3) ; } >$(1)/build.log 2>&1 || \
	{ cat $(1)/build.log; echo "build of $(2) failed: the full log is $(1)/build.log" >&2; exit 1; }

.PHONY: all run test build build-test fuzz clean format deps-run deps-test

all: build

deps-run:
	@bash tools/deps.sh run

deps-test:
	@bash tools/deps.sh test

build: deps-run
	$(call quietly,$(BUILD),the tool (Release),cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release && \
		cmake --build $(BUILD) -j $(JOBS))

run: build
	@bash tools/main-job.sh $(BUILD)/rowreduce

# The test build is Debug at -O1 (TEST_OPT): the sanitizers' recommended level, and half the
# time of -O0 for the tests that plan, emit and validate in the library (the planner's search,
# the float64 reference); ASan and UBSan instrument the same code.
TEST_OPT ?= -O1
build-test: deps-test
	$(call quietly,$(TEST_BUILD),the tests (Debug $(TEST_OPT) + ASan/UBSan),cmake -S . \
		-B $(TEST_BUILD) -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_C_FLAGS_DEBUG=-g $(TEST_OPT)" \
		-DRR_SANITIZE=ON && cmake --build $(TEST_BUILD) -j $(JOBS))

# One more test than cores at a time (TEST_JOBS): many tests wait on subprocesses (the kernel
# and NVRTC compiles) or on the simulated threads' barriers, so JOBS tests left cores idle (on
# 2 cores, ctest -j2 took 664 s of wall for about 805 s of CPU; -j3 408 s).
TEST_JOBS ?= $(shell echo $$(($(JOBS) + 1)))

# The Release build of `make run` is built too: -O3 warnings (as errors) differ from -O1's.
test: build-test build
	cd $(TEST_BUILD) && RR_RELEASE_ROWREDUCE=$(abspath $(BUILD))/rowreduce \
		ctest --output-on-failure -j $(TEST_JOBS)
	@$(MAKE) --no-print-directory fuzz

fuzz: deps-test
	$(call quietly,$(FUZZ_BUILD),the parser fuzz target,CC=clang cmake -S . -B $(FUZZ_BUILD) \
		-DCMAKE_BUILD_TYPE=Debug -DRR_FUZZ=ON && cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_parser)
	@echo "fuzzing the kernel parser for $(FUZZ_SECONDS) s (log: $(FUZZ_BUILD)/fuzz.log)"
	@bash fuzz/run.sh $(FUZZ_BUILD)/fuzz_parser $(FUZZ_SECONDS) >$(FUZZ_BUILD)/fuzz.log 2>&1 || \
		{ tail -n 60 $(FUZZ_BUILD)/fuzz.log; echo "fuzzing failed: the full log is $(FUZZ_BUILD)/fuzz.log" >&2; exit 1; }
	@grep -E '^Done [0-9]+ runs' $(FUZZ_BUILD)/fuzz.log || true

format:
	clang-format -i include/*.h src/*/*.[ch] tools/*.[ch] tests/*.[ch] fuzz/*.c

clean:
	rm -rf $(BUILD) $(TEST_BUILD) $(FUZZ_BUILD)
