/* The device files of src/codegen/device: the embedded copy is the file on disk, sections are
 * found as device_files.h says, every .h compiles on its own with the system C compiler and
 * every .cuh with NVRTC for sm_90 (with a kernel that uses its helpers), and the one copy of
 * the 16-bit conversions rounds to nearest even. Exits 77 (skipped) after the other checks when
 * NVRTC cannot be opened. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/cuda_shim.h"
#include "codegen/c_emit.h"
#include "codegen/device/convert16.h"
#include "codegen/device_files.h"
#include "harness.h"
#include "rowreduce.h"

static char device_dir[4096];

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	rr__buf buf = {0};
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		rr__buf_append(&buf, chunk, n);
	fclose(f);
	rr__buf_append(&buf, "", 1);
	return buf.failed ? NULL : buf.data;
}

static int has_suffix(const char *name, const char *suffix)
{
	size_t n = strlen(name), s = strlen(suffix);
	return n > s && strcmp(name + n - s, suffix) == 0;
}

/* Every device file on disk is embedded, byte for byte, and every embedded one is on disk. */
static int check_embedded_copies(void)
{
	DIR *dir = opendir(device_dir);
	CHECKF(dir != NULL, "cannot open %s", device_dir);
	if (!dir)
		return 0;
	int on_disk = 0, embedded = 0;
	struct dirent *entry;
	while ((entry = readdir(dir)) != NULL) {
		if (!has_suffix(entry->d_name, ".cuh") && !has_suffix(entry->d_name, ".h"))
			continue;
		on_disk++;
		char path[8192];
		snprintf(path, sizeof path, "%s/%s", device_dir, entry->d_name);
		char *text = read_file(path);
		const char *copy = rr__device_file_text(entry->d_name);
		CHECKF(copy != NULL, "%s is not embedded (rerun cmake)", entry->d_name);
		CHECKF(text && copy && strcmp(text, copy) == 0,
		       "the embedded %s differs from the file on disk", entry->d_name);
		free(text);
	}
	closedir(dir);
	for (const rr__device_file *f = rr__device_files; f->name; f++)
		embedded++;
	CHECKF(on_disk == embedded, "%d device files on disk, %d embedded", on_disk, embedded);
	return on_disk;
}

static int has_marker(const char *text, size_t length)
{
	for (size_t i = 0; i + 4 <= length; i++)
		if (strncmp(text + i, "//@ ", 4) == 0)
			return 1;
	return 0;
}

static void check_sections(void)
{
	const char *text;
	size_t length;
	CHECK(rr__device_section("online.cuh", "online", &text, &length));
	CHECK(length > 0 && strncmp(text, "/* exp(x) for generated kernels", 31) == 0);
	CHECK(length > 0 && text[length - 1] == '\n' && !has_marker(text, length));
	/* A section ends at the next marker; the last one at the end of the file. */
	CHECK(rr__device_section("cpu_row.h", "includes", &text, &length));
	CHECK(length == strlen("#include <math.h>\n#include <stdint.h>\n#include <string.h>\n\n"));
	CHECK(rr__device_section("cpu_row.h", "entry", &text, &length));
	CHECK(length > 2 && strncmp(text + length - 2, "}\n", 2) == 0 && text[length] == '/');
	/* The names the cpu backend looks up are the ones the fixed C defines. */
	CHECK(strstr(text, "void " RR_CPU_KERNEL_SYMBOL "(") == text);
	CHECK(rr__device_section("cpu_row.h", "parts_entry", &text, &length));
	CHECK(text[length] == 0 && length > 2 && strcmp(text + length - 2, "}\n") == 0);
	CHECK(strstr(text, "int " RR_CPU_ROW_PARTS_SYMBOL "(void)") != NULL &&
	      strstr(text, "int64_t " RR_CPU_ROW_SHARE_SYMBOL "(void)") != NULL &&
	      strstr(text, "void " RR_CPU_ROW_PART_SYMBOL "(") != NULL);
	CHECK(rr__device_section("cpu_row.h", "slots", &text, &length));
	CHECK(strstr(text, "int64_t " RR_CPU_SCRATCH_SYMBOL "(int64_t N)") != NULL);
	/* Names match whole: no section "online" inside "online_more", no file by prefix. */
	CHECK(!rr__device_section("online.cuh", "onlin", &text, &length) && text == NULL);
	CHECK(!rr__device_section("online", "online", &text, &length));
	rr__buf out = {0};
	rr__device_emit(&out, "online.cuh", "absent");
	rr__buf_append(&out, "", 1);
	CHECK(!out.failed && strcmp(out.data, "#error \"rowreduce: device section absent of "
	                                      "online.cuh is missing\"\n") == 0);
	free(out.data);
}

/* `cc -std=c11 -Wall -Wextra -Werror -c` of a unit that includes the header alone. */
static void check_c_header(const char *name, const char *work)
{
	char unit[8192], command[32768];
	snprintf(unit, sizeof unit, "%s/unit.c", work);
	FILE *f = fopen(unit, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fprintf(f, "#include \"%s/%s\"\nint rr_device_unit_compiled;\n", device_dir, name);
	fclose(f);
	const char *cc = getenv("RR_CC") && *getenv("RR_CC") ? getenv("RR_CC") : "cc";
	snprintf(command, sizeof command,
	         "%s -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -c '%s' -o "
	         "'%s/unit.o'",
	         cc, unit, work);
	int rc = system(command);
	CHECKF(rc == 0, "%s does not compile on its own: %s", name, command);
}

/* What each .cuh file is compiled with (appended to it): a kernel that uses its helpers, so that
 * NVRTC generates their code and ptxas assembles their inline PTX; an unused helper is never
 * assembled. A new .cuh needs an entry here. */
#define IO16_USE                                                                                   \
	"extern \"C\" __global__ void rr_check_io(unsigned *w, io_t *p)\n"                         \
	"{\n"                                                                                      \
	"\tfloat lo, hi;\n"                                                                        \
	"\trr_in2(w[0], lo, hi);\n"                                                                \
	"\tw[1] = rr_out2(lo, hi);\n"                                                              \
	"\tp[0] = rr_out(rr_in(p[1]));\n"                                                          \
	"}\n"

static const struct {
	const char *file, *use;
} cuda_uses[] = {
    {"cluster.cuh", "extern \"C\" __global__ void rr_check_cluster(float *out)\n"
                    "{\n"
                    "\t__shared__ float slot[4];\n"
                    "\trr_mail_init();\n"
                    "\tif (threadIdx.x < 2)\n"
                    "\t\trr_mail_push(slot + rr_cluster_rank(), threadIdx.x, out[0], "
                    "rr_mail_bar(0));\n"
                    "\trr_mail_wait(rr_mail_bar(0), rr_mail_arrive(rr_mail_bar(0), 8, "
                    "threadIdx.x & 31));\n"
                    "\tconst float mailed = slot[0] + slot[1];\n"
                    "\tif (threadIdx.x == 0) {\n"
                    "\t\tslot[2] = out[1];\n"
                    "\t\trr_cluster_publish();\n"
                    "\t}\n"
                    "\trr_cluster_meet();\n"
                    "\tfloat m = 0.0f, z = 0.0f;\n"
                    "\trr_cluster_online(m, z, slot + 2);\n"
                    "\tconst float sum = rr_cluster_reduce<0>(slot + 2);\n"
                    "\trr_cluster_online_wide(m, z, slot + 2);\n"
                    "\tconst float wide = rr_cluster_reduce_wide<1>(slot + 2);\n"
                    "\trr_cluster_sync();\n"
                    "\tout[rr_cluster_rank()] = mailed + sum + m + z + wide;\n"
                    "}\n"},
    {"grid.cuh", "extern \"C\" __global__ void rr_check_grid(float *ws, float *out)\n"
                 "{\n"
                 "\tws[32 + blockIdx.x] = out[blockIdx.x];\n"
                 "\trr_grid_sync(reinterpret_cast<unsigned *>(ws));\n"
                 "\tfloat m = 0.0f, z = 0.0f;\n"
                 "\trr_grid_online(m, z, ws + 32, ws + 32 + C, 0);\n"
                 "\tout[blockIdx.x] = rr_grid_reduce<0>(ws + 32, 2) + m + z;\n"
                 "\tif (rr_grid_arrive(reinterpret_cast<unsigned *>(ws), blockIdx.x > 1))\n"
                 "\t\tout[0] = 0.0f;\n"
                 "}\n"},
    {"io_bf16.cuh", IO16_USE},
    {"io_f16.cuh", IO16_USE},
    {"io_f32.cuh", "extern \"C\" __global__ void rr_check_io(io_t *p)\n"
                   "{\n"
                   "\tp[0] = rr_out(rr_in(p[1]));\n"
                   "}\n"},
    {"keep_raw.cuh", "extern \"C\" __global__ void rr_check_keep_raw(const io_t *p, float *out)\n"
                     "{\n"
                     "\textern __shared__ float keep[];\n"
                     "\trr_keep_stage(keep, 0, 0, p);\n"
                     "\trr_keep_wait();\n"
                     "\tconst uint4 w = *rr_keep_slot(keep, 0, 0);\n"
                     "\tout[threadIdx.x] = __uint_as_float(w.x) + keep[1];\n"
                     "}\n"},
    {"limits.cuh", "extern \"C\" __global__ void rr_check_limits(float *out)\n"
                   "{\n"
                   "\tout[0] = INFINITY;\n"
                   "\tout[1] = NAN;\n"
                   "}\n"},
    {"online.cuh", "extern \"C\" __global__ void rr_check_online(const float *x, float *out)\n"
                   "{\n"
                   "\tfloat v[V], m = -INFINITY, z = 0.0f;\n"
                   "\tfor (int e = 0; e < V; e++)\n"
                   "\t\tv[e] = x[e];\n"
                   "\trr_online_add(m, z, v, V);\n"
                   "\trr_online_combine(m, z, x[V], x[V + 1]);\n"
                   "\tout[0] = m;\n"
                   "\tout[1] = z;\n"
                   "}\n"},
    {"pack_tail.cuh", "extern \"C\" __global__ void rr_check_pack_tail(io_t *p, int valid)\n"
                      "{\n"
                      "\tfloat v[V];\n"
                      "\trr_load_tail<true>(v, p, valid, valid > 1);\n"
                      "\trr_store_tail<false>(p + V, v, valid);\n"
                      "}\n"},
};

/* The whole file and its use with NVRTC, to a cubin. */
static void check_cuda_file(const char *name, const char *text)
{
	const char *use = NULL;
	for (size_t i = 0; i < sizeof cuda_uses / sizeof cuda_uses[0]; i++)
		if (strcmp(cuda_uses[i].file, name) == 0)
			use = cuda_uses[i].use;
	CHECKF(use != NULL, "%s has no kernel that uses its helpers in cuda_uses", name);
	rr__buf source = {0};
	rr__buf_printf(&source, "%s\n%s", text, use ? use : "");
	rr__buf_append(&source, "", 1);
	rr__cuda_compiled compiled = {0};
	rr_status status =
	    source.failed ? RR_ERR_NOMEM : rr__cuda_compile(source.data, "sm_90", 0, &compiled);
	CHECKF(status == RR_OK, "%s does not compile with NVRTC for sm_90: %s\n%s", name,
	       rr_last_error(), compiled.log ? compiled.log : "");
	rr__cuda_compiled_free(&compiled);
	free(source.data);
}

/* Every 16-bit value converts to f32 and back unchanged (NaN stays NaN), and f32 values
 * halfway between two 16-bit neighbours round to the even one. */
static void check_conversions(void)
{
	int bf16_bad = 0, f16_bad = 0;
	for (uint32_t h = 0; h < 65536; h++) {
		float b = rr__bf16_to_float((uint16_t)h), f = rr__f16_to_float((uint16_t)h);
		uint16_t b2 = rr__bf16_from_float(b), f2 = rr__f16_from_float(f);
		bf16_bad += b != b ? !(rr__bf16_to_float(b2) != rr__bf16_to_float(b2)) : b2 != h;
		f16_bad += f != f ? !(rr__f16_to_float(f2) != rr__f16_to_float(f2)) : f2 != h;
	}
	CHECKF(bf16_bad == 0, "%d bf16 values do not round-trip", bf16_bad);
	CHECKF(f16_bad == 0, "%d f16 values do not round-trip", f16_bad);
	/* 1 + 2^-8 is halfway between bf16 1 and 1 + 2^-7: even is 1 (0x3f80). */
	CHECK(rr__bf16_from_float(1.0f + 1.0f / 256) == 0x3f80);
	CHECK(rr__bf16_from_float(1.0f + 3.0f / 256) == 0x3f82);
	/* 1 + 2^-11 is halfway between f16 1 and 1 + 2^-10: even is 1 (0x3c00). */
	CHECK(rr__f16_from_float(1.0f + 1.0f / 2048) == 0x3c00);
	CHECK(rr__f16_from_float(1.0f + 3.0f / 2048) == 0x3c02);
	CHECK(rr__f16_from_float(65520.0f) == 0x7c00); /* rounds up to infinity */
	CHECK(rr__f16_from_float(1e-8f) == 0);         /* below half the least subnormal */
	/* The library's conversions are these. */
	CHECK(rr__f32_to_bf16(3.14159f) == rr__bf16_from_float(3.14159f));
	CHECK(rr__f32_to_f16(3.14159f) == rr__f16_from_float(3.14159f));
}

int main(void)
{
	const char *source = getenv("RR_SOURCE_DIR");
	if (!source) {
		fprintf(stderr, "test_device_sources: RR_SOURCE_DIR must name the source tree\n");
		return 2;
	}
	snprintf(device_dir, sizeof device_dir, "%s/src/codegen/device", source);
	int files = check_embedded_copies();
	CHECKF(files >= 2, "only %d device files found", files);
	check_sections();
	check_conversions();

	char work[] = "/tmp/rr-device-XXXXXX";
	CHECK(mkdtemp(work) != NULL);
	const rr__nvrtc *nvrtc = NULL;
	int have_nvrtc = rr__nvrtc_get(&nvrtc) == RR_OK;
	if (!have_nvrtc)
		fprintf(stderr, "NVRTC absent (%s): the .cuh files are not compiled\n",
		        rr_last_error());
	int cuda_files = 0;
	for (const rr__device_file *f = rr__device_files; f->name; f++) {
		if (has_suffix(f->name, ".h"))
			check_c_header(f->name, work);
		else if (have_nvrtc)
			check_cuda_file(f->name, f->text), cuda_files++;
	}
	CHECKF(!have_nvrtc || cuda_files >= 1, "no .cuh file was compiled");
	char path[128];
	snprintf(path, sizeof path, "%s/unit.c", work);
	unlink(path);
	snprintf(path, sizeof path, "%s/unit.o", work);
	unlink(path);
	rmdir(work);
	int result = rr_test_finish("test_device_sources");
	if (result == 0 && !have_nvrtc)
		return RR_TEST_SKIP;
	return result;
}
