/* Tokens of the kernel language. The lexer walks a length-bounded buffer (NUL bytes are just
 * bad characters), never allocates, and reports errors as "FILE:LINE:COL: error: ..." through
 * rr__spec_error, the one formatter every front-end message goes through. */
#ifndef RR_LANG_LEXER_H
#define RR_LANG_LEXER_H

#include <stddef.h>

#include "rowreduce.h"

typedef enum rr__token_type {
	RR_TOK_END = 0, /* end of the text */
	RR_TOK_NEWLINE, /* statements end at the end of a line */
	RR_TOK_NAME,
	RR_TOK_NUMBER,
	RR_TOK_LPAREN,
	RR_TOK_RPAREN,
	RR_TOK_LBRACKET,
	RR_TOK_RBRACKET,
	RR_TOK_COMMA,
	RR_TOK_COLON,
	RR_TOK_EQUALS,
	RR_TOK_PLUS,
	RR_TOK_MINUS,
	RR_TOK_STAR,
	RR_TOK_SLASH
} rr__token_type;

typedef struct rr__token {
	rr__token_type type;
	const char *start; /* points into the lexed text; not zero-terminated */
	size_t length;
	double number;    /* RR_TOK_NUMBER */
	int line, column; /* 1-based */
} rr__token;

typedef struct rr__lexer {
	const char *file; /* for messages */
	const char *text;
	size_t length, pos;
	size_t line_start; /* offset of the current line's first byte */
	int line;
} rr__lexer;

void rr__lexer_init(rr__lexer *lexer, const char *text, size_t length, const char *file);
/* Reads the next token into *token; on bad text sets the error (RR_ERR_PARSE) and returns it. */
rr_status rr__lexer_next(rr__lexer *lexer, rr__token *token);

/* 1 when the token is the name `word`. */
int rr__token_is(const rr__token *token, const char *word);
/* Describes a token for "found ..." messages: "'xx'", "number 1.5", "end of line", ... Long
 * names and numbers are shortened; the result always fits `size`. */
void rr__token_describe(const rr__token *token, char *buf, size_t size);

/* Sets the thread's error to "FILE:LINE:COL: error: <message>" and returns `status`. */
rr_status rr__spec_error(rr_status status, const char *file, int line, int column, const char *fmt,
                         ...) __attribute__((format(printf, 5, 6)));

#endif
