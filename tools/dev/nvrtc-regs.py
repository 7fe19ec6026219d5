#!/usr/bin/env python3
"""Registers, stack frame and spill stores of every entry of a generated CUDA source, compiled by
NVRTC with the backend's own options (src/backend/cuda_shim.c, options_for) for sm_90, no GPU
needed. NVRTC's ptxas is what the backend runs, and it spills where nvcc -O3 does not (layernorm
bf16 2047x6143's scalar entry at 64 registers: 8 bytes; bench/NOTES.md session 51), so check
launch bounds with this, not with nvcc.

  rowreduce emit --backend cuda --arch sm_90 --kernel layernorm --shape 2047x6143 --dtype bf16 \\
      > /tmp/ln.cu
  tools/dev/nvrtc-regs.py /tmp/ln.cu                        # the backend's first compile
  tools/dev/nvrtc-regs.py /tmp/ln.cu -DRR_MIN_BLOCKS_CAPPED # its second (see rr__cuda_second_defines)

NVRTC is looked up as libnvrtc.so* under $CUDA_HOME/lib64 (default /usr/local/cuda) and then
by the loader's search path. Exit status 1 where NVRTC rejects the source (its log is printed).
"""
import ctypes
import glob
import os
import re
import sys


def load_nvrtc():
    home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    for path in sorted(glob.glob(os.path.join(home, "lib64", "libnvrtc.so*"))) + ["libnvrtc.so"]:
        try:
            return ctypes.CDLL(path)
        except OSError:
            continue
    sys.exit("nvrtc-regs: no libnvrtc.so under %s/lib64 or on the loader's path" % home)


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(sys.argv) >= 2 else 2
    with open(sys.argv[1], "rb") as f:
        source = f.read()
    nvrtc = load_nvrtc()
    program = ctypes.c_void_p()
    if nvrtc.nvrtcCreateProgram(ctypes.byref(program), source, b"rowreduce.cu", 0, None, None):
        sys.exit("nvrtc-regs: nvrtcCreateProgram failed")
    options = [b"--gpu-architecture=sm_90", b"-default-device", b"--std=c++17",
               b"--ptxas-options=-v"] + [o.encode() for o in sys.argv[2:]]
    array = (ctypes.c_char_p * len(options))(*options)
    status = nvrtc.nvrtcCompileProgram(program, len(options), array)
    size = ctypes.c_size_t()
    nvrtc.nvrtcGetProgramLogSize(program, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    nvrtc.nvrtcGetProgramLog(program, log)
    text = log.value.decode(errors="replace")
    nvrtc.nvrtcDestroyProgram(ctypes.byref(program))
    if status:
        print(text)
        return 1
    pattern = re.compile(r"Function properties for (\w+)\n[^\n]*?(\d+) bytes stack frame, "
                         r"(\d+) bytes spill stores.*?Used (\d+) registers", re.S)
    print("%-32s %9s %11s %12s" % ("entry", "registers", "stack bytes", "spill stores"))
    for m in pattern.finditer(text):
        print("%-32s %9s %11s %12s" % (m.group(1), m.group(4), m.group(2), m.group(3)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
