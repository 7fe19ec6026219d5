/* The registered backends, in the order `--backend auto` tries them. Adding a backend is one
 * line here plus its own file. Names are compared here and nowhere else: what differs between
 * backends is data in their tables (rr__backend_report, target_for_arch, read_pass). */
#include <string.h>

#include "backend/backend.h"

const rr__backend_ops *const rr__backends[] = {
    &rr__cuda_backend,
    &rr__cpu_backend,
    NULL,
};

const rr__backend_ops *rr__backend_find(const char *name)
{
	for (int i = 0; name && rr__backends[i]; i++)
		if (strcmp(rr__backends[i]->name, name) == 0)
			return rr__backends[i];
	return NULL;
}
