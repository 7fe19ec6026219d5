/* The registered backends, in the order `--backend auto` tries them. Adding a backend is one
 * line here plus its own file. */
#include "backend/backend.h"

const rr__backend_ops *const rr__backends[] = {
    &rr__cuda_backend,
    &rr__cpu_backend,
    NULL,
};
