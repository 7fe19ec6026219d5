# The two quick-start commands: `make run` (build + the main job) and `make test` (build + tests).
# Everything else is CMake; this file only picks build folders and options.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
BUILD ?= build
TEST_BUILD ?= build-test
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60

.PHONY: all run test build build-test fuzz clean format

all: build

build:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

run: build
	bash tools/main-job.sh $(BUILD)/rowreduce

build-test:
	cmake -S . -B $(TEST_BUILD) -DCMAKE_BUILD_TYPE=Debug -DRR_SANITIZE=ON >/dev/null
	cmake --build $(TEST_BUILD) -j $(JOBS)

# The Release build of `make run` is built too: -O3 warnings (as errors) differ from -O0's.
test: build-test build
	cd $(TEST_BUILD) && ctest --output-on-failure -j $(JOBS)
	$(MAKE) fuzz

fuzz:
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Debug -DRR_FUZZ=ON >/dev/null
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_parser
	bash fuzz/run.sh $(FUZZ_BUILD)/fuzz_parser $(FUZZ_SECONDS)

format:
	clang-format -i include/*.h src/*/*.[ch] tools/*.[ch] tests/*.[ch] fuzz/*.c

clean:
	rm -rf $(BUILD) $(TEST_BUILD) $(FUZZ_BUILD)
