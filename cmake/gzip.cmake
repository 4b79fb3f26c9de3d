# cmake -DINPUT=FILE -DOUTPUT=FILE.gz -P gzip.cmake: compresses a man page
# as Debian policy asks (gzip -9n: best compression, no file name or time
# stamp in the header, so the same page gives the same bytes).
find_program(GZIP gzip REQUIRED)
execute_process(COMMAND ${GZIP} -9n -c ${INPUT} OUTPUT_FILE ${OUTPUT}.tmp RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  file(REMOVE ${OUTPUT}.tmp)
  message(FATAL_ERROR "gzip ${INPUT} failed: ${status}")
endif()
file(RENAME ${OUTPUT}.tmp ${OUTPUT})
