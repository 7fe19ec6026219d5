/* The device files of src/codegen/device, embedded at build time (cmake/embed_files.cmake):
 * the fixed CUDA C (.cuh) and C (.h) that the emitters print around what a plan decides.
 * A file is cut into sections by marker lines "//@ name": a section is the text after its
 * marker up to the next marker or the end of the file. Text before the first marker (the
 * file's comment) and sections no emitter asks for ("stand-in": declarations that let the
 * file compile on its own) are never printed. */
#ifndef RR_CODEGEN_DEVICE_FILES_H
#define RR_CODEGEN_DEVICE_FILES_H

#include <stddef.h>

#include "util/util.h"

typedef struct rr__device_file {
	const char *name; /* "online.cuh" */
	const char *text; /* the whole file */
} rr__device_file;

/* Every file of src/codegen/device in name order, then {0, 0} (generated/device_files.c). */
extern const rr__device_file rr__device_files[];

/* The embedded text of file `name`, or NULL. */
const char *rr__device_file_text(const char *name);
/* Section `section` of file `name`: 1 with its text and length, 0 when absent. */
int rr__device_section(const char *name, const char *section, const char **text, size_t *length);
/* Appends the section to `out`. A missing one (a build without that file) appends an #error
 * line that names it, so the compiler of the generated source stops with a clear message. */
void rr__device_emit(rr__buf *out, const char *name, const char *section);

#endif
