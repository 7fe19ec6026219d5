/* The lexer of the kernel language: names, numbers, punctuation and line ends, with exact
 * line:column positions. Runs in one pass over a length-bounded buffer, so a megabyte line or
 * a NUL byte costs nothing special. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/lexer.h"
#include "lang/ir.h"
#include "util/util.h"

/* Longest number text handed to strtod; real literals are far shorter. */
#define MAX_NUMBER_TEXT 63

rr_status rr__spec_error(rr_status status, const char *file, int line, int column, const char *fmt,
                         ...)
{
	char message[1024];
	va_list args;
	va_start(args, fmt);
	vsnprintf(message, sizeof message, fmt, args);
	va_end(args);
	return rr__fail(status, "%s:%d:%d: error: %s", file ? file : "<string>", line, column,
	                message);
}

void rr__lexer_init(rr__lexer *lexer, const char *text, size_t length, const char *file)
{
	memset(lexer, 0, sizeof *lexer);
	lexer->file = file;
	lexer->text = text;
	lexer->length = text ? length : 0;
	lexer->line = 1;
	/* A UTF-8 byte-order mark (editors on Windows write one) is not part of the text; columns
	 * count from after it. */
	if (lexer->length >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		lexer->pos = lexer->line_start = 3;
}

static int is_name_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int is_name_char(int c)
{
	return is_name_start(c) || is_digit(c);
}

static int peek(const rr__lexer *lexer, size_t ahead)
{
	size_t at = lexer->pos + ahead;
	return at < lexer->length ? (unsigned char)lexer->text[at] : -1;
}

static int column_of(const rr__lexer *lexer, size_t pos)
{
	size_t column = pos - lexer->line_start + 1;
	return column > INT_MAX ? INT_MAX : (int)column;
}

/* Shortens text for a message: at most 24 bytes, then "...". */
static void excerpt(const char *text, size_t length, char *buf, size_t size)
{
	if (length > 24)
		snprintf(buf, size, "%.24s...", text);
	else
		snprintf(buf, size, "%.*s", (int)length, text);
}

/* The span of a malformed number: everything that still looks like part of it. */
static size_t number_span_end(const rr__lexer *lexer, size_t end)
{
	while (end < lexer->length) {
		int c = (unsigned char)lexer->text[end];
		int sign_after_e = (c == '+' || c == '-') && end > 0 &&
		                   (lexer->text[end - 1] == 'e' || lexer->text[end - 1] == 'E');
		if (!is_name_char(c) && c != '.' && !sign_after_e)
			break;
		end++;
	}
	return end;
}

static rr_status bad_number(rr__lexer *lexer, rr__token *token, size_t end)
{
	char shown[40];
	excerpt(lexer->text + lexer->pos, end - lexer->pos, shown, sizeof shown);
	return rr__spec_error(RR_ERR_PARSE, lexer->file, token->line, token->column,
	                      "bad number '%s'; expected digits with an optional fraction and "
	                      "exponent, like 3, 0.5 or 1e-6",
	                      shown);
}

/* digits [. digits] | . digits, then [e|E [+|-] digits]; nothing name-like may follow. */
static rr_status lex_number(rr__lexer *lexer, rr__token *token)
{
	size_t end = lexer->pos;
	size_t int_digits = 0, frac_digits = 0;
	while (end < lexer->length && is_digit(lexer->text[end]))
		end++, int_digits++;
	if (end < lexer->length && lexer->text[end] == '.') {
		end++;
		while (end < lexer->length && is_digit(lexer->text[end]))
			end++, frac_digits++;
	}
	int ok = int_digits + frac_digits > 0;
	if (ok && end < lexer->length && (lexer->text[end] == 'e' || lexer->text[end] == 'E')) {
		end++;
		if (end < lexer->length && (lexer->text[end] == '+' || lexer->text[end] == '-'))
			end++;
		size_t exp_digits = 0;
		while (end < lexer->length && is_digit(lexer->text[end]))
			end++, exp_digits++;
		ok = exp_digits > 0;
	}
	if (end < lexer->length && (is_name_char(lexer->text[end]) || lexer->text[end] == '.'))
		ok = 0;
	if (!ok)
		return bad_number(lexer, token, number_span_end(lexer, end));
	size_t length = end - lexer->pos;
	if (length > MAX_NUMBER_TEXT) {
		char shown[40];
		excerpt(lexer->text + lexer->pos, length, shown, sizeof shown);
		return rr__spec_error(RR_ERR_PARSE, lexer->file, token->line, token->column,
		                      "number '%s' is %zu characters long; expected at most %d",
		                      shown, length, MAX_NUMBER_TEXT);
	}
	char copy[MAX_NUMBER_TEXT + 1];
	memcpy(copy, lexer->text + lexer->pos, length);
	copy[length] = 0;
	double value = strtod(copy, NULL);
	if (isinf(value))
		return rr__spec_error(RR_ERR_PARSE, lexer->file, token->line, token->column,
		                      "number '%s' is out of range; expected a magnitude below "
		                      "1.8e308",
		                      copy);
	token->type = RR_TOK_NUMBER;
	token->number = value;
	token->length = length;
	lexer->pos = end;
	return RR_OK;
}

static rr_status lex_name(rr__lexer *lexer, rr__token *token)
{
	size_t end = lexer->pos;
	while (end < lexer->length && is_name_char((unsigned char)lexer->text[end]))
		end++;
	size_t length = end - lexer->pos;
	if (length > RR_MAX_NAME - 1) {
		char shown[40];
		excerpt(lexer->text + lexer->pos, length, shown, sizeof shown);
		return rr__spec_error(RR_ERR_PARSE, lexer->file, token->line, token->column,
		                      "name '%s' is %zu characters long; expected at most %d",
		                      shown, length, RR_MAX_NAME - 1);
	}
	token->type = RR_TOK_NAME;
	token->length = length;
	lexer->pos = end;
	return RR_OK;
}

static rr__token_type punctuation(int c)
{
	switch (c) {
	case '(':
		return RR_TOK_LPAREN;
	case ')':
		return RR_TOK_RPAREN;
	case '[':
		return RR_TOK_LBRACKET;
	case ']':
		return RR_TOK_RBRACKET;
	case ',':
		return RR_TOK_COMMA;
	case ':':
		return RR_TOK_COLON;
	case '=':
		return RR_TOK_EQUALS;
	case '+':
		return RR_TOK_PLUS;
	case '-':
		return RR_TOK_MINUS;
	case '*':
		return RR_TOK_STAR;
	case '/':
		return RR_TOK_SLASH;
	}
	return RR_TOK_END;
}

static void skip_blanks_and_comments(rr__lexer *lexer)
{
	for (;;) {
		int c = peek(lexer, 0);
		if (c == ' ' || c == '\t' || c == '\r') {
			lexer->pos++;
		} else if (c == '#') {
			const char *nl =
			    memchr(lexer->text + lexer->pos, '\n', lexer->length - lexer->pos);
			lexer->pos = nl ? (size_t)(nl - lexer->text) : lexer->length;
		} else {
			return;
		}
	}
}

rr_status rr__lexer_next(rr__lexer *lexer, rr__token *token)
{
	skip_blanks_and_comments(lexer);
	memset(token, 0, sizeof *token);
	token->start = lexer->text ? lexer->text + lexer->pos : "";
	token->line = lexer->line;
	token->column = column_of(lexer, lexer->pos);
	int c = peek(lexer, 0);
	if (c < 0) {
		token->type = RR_TOK_END;
		return RR_OK;
	}
	if (c == '\n') {
		token->type = RR_TOK_NEWLINE;
		token->length = 1;
		lexer->pos++;
		lexer->line_start = lexer->pos;
		if (lexer->line < INT_MAX)
			lexer->line++;
		return RR_OK;
	}
	if (is_name_start(c))
		return lex_name(lexer, token);
	if (is_digit(c) || (c == '.' && is_digit(peek(lexer, 1))))
		return lex_number(lexer, token);
	rr__token_type type = punctuation(c);
	if (type != RR_TOK_END) {
		token->type = type;
		token->length = 1;
		lexer->pos++;
		return RR_OK;
	}
	char shown[16];
	if (c > 0x20 && c < 0x7f)
		snprintf(shown, sizeof shown, "character '%c'", c);
	else
		snprintf(shown, sizeof shown, "byte 0x%02X", (unsigned)c);
	return rr__spec_error(RR_ERR_PARSE, lexer->file, token->line, token->column,
	                      "unexpected %s; expected a name, a number, one of ( ) [ ] , : = + - "
	                      "* / or a # comment",
	                      shown);
}

int rr__token_is(const rr__token *token, const char *word)
{
	size_t length = strlen(word);
	return token->type == RR_TOK_NAME && token->length == length &&
	       memcmp(token->start, word, length) == 0;
}

void rr__token_describe(const rr__token *token, char *buf, size_t size)
{
	char shown[40];
	switch (token->type) {
	case RR_TOK_END:
		snprintf(buf, size, "end of file");
		return;
	case RR_TOK_NEWLINE:
		snprintf(buf, size, "end of line");
		return;
	case RR_TOK_NAME:
		excerpt(token->start, token->length, shown, sizeof shown);
		snprintf(buf, size, "'%s'", shown);
		return;
	case RR_TOK_NUMBER:
		excerpt(token->start, token->length, shown, sizeof shown);
		snprintf(buf, size, "number %s", shown);
		return;
	default:
		snprintf(buf, size, "'%.*s'", (int)(token->length ? 1 : 0), token->start);
		return;
	}
}
