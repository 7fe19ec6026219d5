/* INFINITY and NAN for generated CUDA C. NVRTC compiles without system headers, so the
 * generated source defines the two constants it needs from their bits. src/codegen/cuda_emit.c
 * prints the section "limits" right after the header comment (sections: device_files.h). */
//@ limits
#define INFINITY __int_as_float(0x7f800000)
#define NAN __int_as_float(0x7fffffff)

