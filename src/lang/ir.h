/* The typed row program (IR): what the parser produces and every later stage reads.
 *
 * A kernel is a list of nodes in topological order (operands always have smaller ids than
 * their users). Nodes are hash-consed by rr__ir_add: building the same expression twice gives
 * the same id, so structural equality is id equality.
 */
#ifndef RR_LANG_IR_H
#define RR_LANG_IR_H

#include "rowreduce.h"

#define RR_MAX_IO 16      /* inputs, and separately outputs, per kernel */
#define RR_MAX_NAME 64    /* identifier length, including the terminating zero */
#define RR_MAX_NODES 4096 /* nodes per kernel */

/* Where a value varies: once per row (scalar) or once per element of a row (elem). */
typedef enum rr__shape {
	RR_SHAPE_SCALAR = 0,
	RR_SHAPE_ELEM,
	RR_SHAPE_INDEX /* an index input: usable only inside a gather x[t] */
} rr__shape;

typedef enum rr__op {
	RR_OP_INPUT =
	    0,       /* input `input`: row/col -> elem, rowscalar/param -> scalar, index -> index */
	RR_OP_CONST, /* `value` */
	RR_OP_N,     /* the row length, as a scalar */
	RR_OP_NEG,   /* unary: a */
	RR_OP_EXP,
	RR_OP_LOG,
	RR_OP_SQRT,
	RR_OP_RSQRT,
	RR_OP_ABS,
	RR_OP_TANH,
	RR_OP_ADD, /* binary: a, b */
	RR_OP_SUB,
	RR_OP_MUL,
	RR_OP_DIV,
	RR_OP_MAX,
	RR_OP_MIN,
	RR_OP_REDUCE, /* `reduce` over elem node a -> scalar; `exact` = index order only */
	RR_OP_GATHER  /* element of row input `input` at the row's index input `index` -> scalar */
} rr__op;

typedef enum rr__reduce { RR_REDUCE_SUM = 0, RR_REDUCE_MAX, RR_REDUCE_MIN } rr__reduce;

typedef struct rr__node {
	rr__op op;
	rr__shape shape;
	int a, b;          /* operand node ids, -1 when unused */
	int input;         /* INPUT, GATHER: index into kernel->inputs */
	int index;         /* GATHER: index into kernel->inputs of the index input */
	double value;      /* CONST */
	rr__reduce reduce; /* REDUCE */
	int exact;         /* REDUCE: 1 = one accumulator in index order, no reassociation */
	int line, column;  /* where the node was first written (1-based), 0 if synthetic */
} rr__node;

typedef struct rr__io {
	char name[RR_MAX_NAME];
	rr_kind kind;
	double default_value; /* params */
	int node;             /* outputs: the node assigned to it; inputs: its INPUT node or -1 */
	int line, column;
} rr__io;

/* A named intermediate (`inv = rsqrt(...)`), kept for printing the analysis. */
typedef struct rr__binding {
	char name[RR_MAX_NAME];
	int node;
} rr__binding;

/* Results of the analysis (src/analysis), filled by rr__analyze once the kernel type-checks. */
typedef struct rr__analysis {
	int rounds;
	/* Per node: the level at which its value is known. Scalars that need no reduction, and
	 * elem nodes that read only inputs, are level 0; a reduction is one more than the level of
	 * its operand, except the sum of an online pair, which shares its max's level. An elem node
	 * of level L is evaluated during round L + 1 (as reduction input) or in the output phase.
	 */
	int *level;
	/* Per node: for the max and the sum of an online pair, the other's id; else -1. The sum's
	 * operand exp(e - m) is then never evaluated for it: the pair accumulates e directly. */
	int *online_partner;
	int online_rewrites;
	int exact_reductions;
	int reductions; /* REDUCE nodes, an online pair counted once */
} rr__analysis;

struct rr_kernel {
	char name[RR_MAX_NAME];
	char path[256]; /* file it came from, or the name given for errors */
	char *text;     /* the source text (owned) */
	size_t text_length;
	char source_hash[65]; /* SHA-256 hex of text */
	int n_inputs, n_outputs;
	rr__io inputs[RR_MAX_IO];
	rr__io outputs[RR_MAX_IO];
	int n_nodes, cap_nodes;
	rr__node *nodes;
	int n_bindings, cap_bindings;
	rr__binding *bindings;
	rr__analysis analysis;
};

/* Allocates an empty kernel named `name` (analysis arrays empty). NULL on out of memory. */
rr_kernel *rr__kernel_new(const char *name);
/* Adds a node, returning the id of an identical existing node if there is one (hash-consing by
 * op, shape, operands, input, index, value, reduce, exact; the position is not compared) or the
 * new id; -1 on out of memory or when RR_MAX_NODES is reached (rr_last_error says which). */
int rr__ir_add(rr_kernel *kernel, const rr__node *node);
/* Convenience constructors over rr__ir_add; the shape is derived from the operands. */
/* The shape of an input's values in a row program: row and col inputs are elements, an index
 * input is an index, rowscalar and param inputs are scalars. */
rr__shape rr__input_shape(rr_kind kind);
int rr__ir_input(rr_kernel *kernel, int input);
int rr__ir_const(rr_kernel *kernel, double value);
int rr__ir_n(rr_kernel *kernel);
int rr__ir_unary(rr_kernel *kernel, rr__op op, int a);
int rr__ir_binary(rr_kernel *kernel, rr__op op, int a, int b);
int rr__ir_reduce(rr_kernel *kernel, rr__reduce reduce, int exact, int a);
int rr__ir_gather(rr_kernel *kernel, int row_input, int index_input);

/* Printable names: "exp", "sum", ... */
const char *rr__op_name(rr__op op);
const char *rr__reduce_name(rr__reduce reduce);
/* Writes node `id` as an expression in the kernel language (inputs by name, bindings inlined). */
void rr__ir_print_expr(const rr_kernel *kernel, int id, FILE *out);
/* As rr__ir_print_expr, with only the parentheses that precedence needs and numbers in their
 * shortest exact form: "d * inv * w + b" rather than "((((d * inv) * w)) + b)". */
void rr__ir_print_expr_tidy(const rr_kernel *kernel, int id, FILE *out);
/* The shortest text that reads back as exactly `value`, as written ("1e-6", "0.5", "30"). */
void rr__ir_format_number(double value, char out[32]);

#endif
