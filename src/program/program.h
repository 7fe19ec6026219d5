/* Internal entry points of the device/program pipeline (program.c) for tools that need less than
 * a full build: emitting a plan's source for a target without compiling or opening a device. */
#ifndef RR_PROGRAM_PROGRAM_H
#define RR_PROGRAM_PROGRAM_H

#include "backend/backend.h"

/* Plans and emits like rr_program_build but stops before compiling: the program has a source and
 * its hash, no module (rr_program_launch refuses it). `device` may be a caller-filled struct that
 * was never opened (ops and target set, impl NULL): backends' emit reads only the target. */
rr_status rr__program_emit_only(rr_device *device, const rr_kernel *kernel, rr_dtype dtype,
                                int64_t rows_hint, int64_t cols, const rr_layout *layout,
                                rr_program **out);

#endif
