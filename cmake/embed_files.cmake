# Turns files into a C table of (name, text), so the library needs no files at run time: the
# built-in kernels (specs/*.rr), the emitters' device code (src/codegen/device) and the cost
# model's coefficient files (src/plan/coeffs). Arguments (-D):
#   OUT      the C file to write (written to OUT.tmp, then renamed)
#   GLOBS    the files' patterns, separated by '|'
#   NAME     NAME (the file name) or NAME_WE (without its extension) as each entry's name
#   INCLUDE  the header that declares the table's type
#   TABLE    the table's declaration, e.g. "const rr__builtin rr__builtins[]"
#   FROM     where the files come from, for the generated file's first line
string(REPLACE "|" ";" patterns "${GLOBS}")
file(GLOB files ${patterns})
list(SORT files)
set(body "/* Generated from ${FROM} by cmake/embed_files.cmake; do not edit. */\n")
string(APPEND body "#include \"${INCLUDE}\"\n\n${TABLE} = {\n")
foreach(f ${files})
  get_filename_component(name ${f} ${NAME})
  file(READ ${f} text HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "\\\\x\\1" escaped "${text}")
  string(APPEND body "  {\"${name}\", \"${escaped}\"},\n")
endforeach()
string(APPEND body "  {0, 0},\n};\n")
file(WRITE ${OUT}.tmp "${body}")
file(RENAME ${OUT}.tmp ${OUT})
