# Turns a text file into a C source defining `const char stoat_prelude[]`.
file(READ ${INPUT} content)
string(REPLACE "\\" "\\\\" content "${content}")
string(REPLACE "\"" "\\\"" content "${content}")
string(REPLACE "\n" "\\n\"\n\"" content "${content}")
file(WRITE ${OUTPUT} "/* Generated from stdlib/std.stoat by compiler/embed.cmake. DO NOT EDIT. */\nconst char stoat_prelude[] =\n\"${content}\";\n")
