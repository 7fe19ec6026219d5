/* The built-in kernels, embedded from the specs folder at build time (cmake/embed_files.cmake). */
#ifndef RR_LANG_BUILTINS_H
#define RR_LANG_BUILTINS_H

typedef struct rr__builtin {
	const char *name;
	const char *text;
} rr__builtin;

/* Terminated by an entry whose name is NULL. */
extern const rr__builtin rr__builtins[];

#endif
