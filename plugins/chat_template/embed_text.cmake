# cmake -DINPUT=FILE -DOUTPUT=FILE.cpp -DFUNCTION=NAME -P embed_text.cmake: writes a C++ source
# whose cmfpipe::chat_template::NAME() returns FILE's text, so the plugin carries the data it was
# built with and never looks for the file at run time.
file(READ "${INPUT}" text)
set(delimiter "cmfpipe_embedded")
string(FIND "${text}" ")${delimiter}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains )${delimiter}\", which would end the raw string")
endif()
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${INPUT} by embed_text.cmake at build time; do not edit.\n"
  "#include <string_view>\n\n"
  "namespace cmfpipe::chat_template {\n"
  "std::string_view ${FUNCTION}();\n"
  "std::string_view ${FUNCTION}() {\n"
  "    return R\"${delimiter}(${text})${delimiter}\";\n"
  "}\n"
  "}  // namespace cmfpipe::chat_template\n")
# Unchanged text leaves the source untouched, so nothing recompiles for it.
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
