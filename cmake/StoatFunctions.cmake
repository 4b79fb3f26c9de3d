# StoatFunctions.cmake - building stoat applications with CMake (included
# by StoatConfig.cmake, so find_package(Stoat) provides it).
#
#   stoat_add_topology(<target> <file.stoat>
#                      [EXTERN <file>...]        C sources (and headers) of the
#                                                extern functions
#                      [INCLUDE_DIRS <dir>...]   more directories for extern
#                                                headers (the .stoat file's own
#                                                directory is always searched)
#                      [SHARED]                  link Stoat::runtime_shared rather
#                                                than the static Stoat::runtime
#                      [LINE_DIRECTIVES])        #line back to the .stoat file
#
# adds the executable <target>: `stoatc emit` writes the program's C into
# ${CMAKE_CURRENT_BINARY_DIR}/stoat/<target>/, which is compiled with the
# EXTERN sources and your project's C flags and linked with the runtime.
# Without a build type (and without an -O option in CMAKE_C_FLAGS) they
# are compiled with -O2, as `stoatc build` compiles, rather than CMake's
# unoptimised default.
# stoatc also writes a depfile naming the .stoat file and every extern
# header, so editing either regenerates the C and rebuilds the program.
# Needs CMake 3.20 (DEPFILE with every generator).

if(CMAKE_VERSION VERSION_LESS 3.20)
  message(FATAL_ERROR "stoat_add_topology needs CMake 3.20 or later")
endif()

# Adds the executable <target> built from a .stoat file (see above).
function(stoat_add_topology target file)
  cmake_parse_arguments(PARSE_ARGV 2 STOAT "SHARED;LINE_DIRECTIVES" "" "EXTERN;INCLUDE_DIRS")
  if(STOAT_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "stoat_add_topology(${target}): unexpected arguments: ${STOAT_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT file MATCHES "\\.stoat$")
    message(FATAL_ERROR "stoat_add_topology(${target}): ${file} is not a .stoat file")
  endif()
  get_filename_component(source "${file}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  get_filename_component(source_dir "${source}" DIRECTORY)
  get_filename_component(name "${source}" NAME_WE)
  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/stoat/${target}")
  set(out "${out_dir}/${name}.c")

  set(include_dirs)
  set(stoatc_flags)
  foreach(dir IN LISTS STOAT_INCLUDE_DIRS)
    get_filename_component(dir "${dir}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND include_dirs "${dir}")
    list(APPEND stoatc_flags -I "${dir}")
  endforeach()
  if(STOAT_LINE_DIRECTIVES)
    list(APPEND stoatc_flags --line-directives)
  endif()

  add_custom_command(
    OUTPUT "${out}"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${out_dir}"
    COMMAND Stoat::stoatc emit ${stoatc_flags} -MD -MF "${out}.d" -MQ "${out}" "${source}" -o "${out}"
    DEPENDS "${source}" "$<TARGET_FILE:Stoat::stoatc>"
    DEPFILE "${out}.d"
    COMMENT "stoatc emit ${file}"
    VERBATIM)

  add_executable(${target} "${out}" ${STOAT_EXTERN})
  # CMake adds no optimisation flag without a build type, which would make
  # the program several times slower than what `stoatc build` gives (-O2);
  # a build type or the project's own -O decides otherwise.
  if(NOT CMAKE_C_FLAGS MATCHES "(^| )-O")
    target_compile_options(${target} PRIVATE "$<$<CONFIG:>:-O2>")
  endif()
  # The generated C includes the extern headers by the names in the .stoat file.
  target_include_directories(${target} PRIVATE "${source_dir}" ${include_dirs})
  if(STOAT_SHARED)
    target_link_libraries(${target} PRIVATE Stoat::runtime_shared)
  else()
    target_link_libraries(${target} PRIVATE Stoat::runtime)
  endif()
endfunction()
