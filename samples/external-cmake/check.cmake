# cmake -DPROGRAM=... -DINPUT=... -DEXPECTED=... -P check.cmake: runs the
# program's replay driver on INPUT and fails unless it prints EXPECTED.
execute_process(COMMAND "${PROGRAM}" replay "${INPUT}"
  OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} replay exited with ${rc}")
endif()
file(READ "${EXPECTED}" expected)
if(NOT out STREQUAL expected)
  message(FATAL_ERROR "${PROGRAM}: unexpected output:\n${out}\nexpected:\n${expected}")
endif()
