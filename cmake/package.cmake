# The Debian package: `cpack -G DEB` in a build directory (scripts/deb
# configures a Release build for /usr and runs it) writes
# stoat_<version>_<arch>.deb holding exactly what `cmake --install`
# installs (cmake/install.cmake).
#
# Its Depends are computed, not listed by hand:
#   - dpkg-shlibdeps (CPACK_DEBIAN_PACKAGE_SHLIBDEPS) gives the shared
#     libraries stoatc and libstoat-runtime.so run with (libc6,
#     librdkafka1, librocksdb*, libyaml-0-2, libmicrohttpd12, ...);
#   - what a user needs to link a generated program against the static
#     runtime: for each -lNAME of STOAT_RUNTIME_LIBS (top-level
#     CMakeLists.txt: what stoatc build and stoat-runtime.pc link), the
#     package owning the libNAME.so the linker finds (dpkg -S):
#     librdkafka-dev, librocksdb-dev, libyaml-dev, libmicrohttpd-dev, and
#     libc6-dev for -lm; those also hold the headers that PGO builds
#     compile the runtime's sources with;
#   - gcc, the C compiler stoatc build runs as cc (CC picks another).
# tests/deb derives the same from the installed files and checks both.
#
# Nothing here runs without dpkg (a build on another system is not
# packaged).
find_program(STOAT_DPKG dpkg)
if(NOT STOAT_DPKG)
  message(STATUS "dpkg not found: no Debian package (cpack -G DEB)")
  return()
endif()

# The Debian package owning file (its path as given, or resolved: usrmerge
# lets dpkg know a file by either), or "" when none does.
function(stoat_deb_owner file out)
  set(owner "")
  get_filename_component(real ${file} REALPATH)
  string(REGEX REPLACE "^/usr/" "/" unmerged ${real})
  foreach(candidate ${file} ${real} ${unmerged})
    execute_process(COMMAND ${STOAT_DPKG} -S ${candidate}
      OUTPUT_VARIABLE found ERROR_QUIET RESULT_VARIABLE status OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(status EQUAL 0 AND found MATCHES "^([^:, ]+)")
      set(owner ${CMAKE_MATCH_1})
      break()
    endif()
  endforeach()
  set(${out} ${owner} PARENT_SCOPE)
endfunction()

# The -dev packages of STOAT_RUNTIME_LIBS: each -lNAME is looked up in its
# -L directories, then where the C compiler's linker looks.
separate_arguments(stoat_link_words UNIX_COMMAND "${STOAT_RUNTIME_LIBS}")
set(stoat_link_dirs)
set(STOAT_DEB_LINK_DEPENDS)
foreach(word IN LISTS stoat_link_words)
  if(word MATCHES "^-L(.+)")
    list(APPEND stoat_link_dirs ${CMAKE_MATCH_1})
  elseif(word MATCHES "^-l(.+)")
    set(name lib${CMAKE_MATCH_1}.so)
    set(path "")
    foreach(dir IN LISTS stoat_link_dirs)
      if(EXISTS ${dir}/${name})
        set(path ${dir}/${name})
        break()
      endif()
    endforeach()
    if(NOT path)
      execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=${name}
        OUTPUT_VARIABLE path OUTPUT_STRIP_TRAILING_WHITESPACE)
    endif()
    set(owner "")
    if(path AND IS_ABSOLUTE ${path} AND EXISTS ${path})
      stoat_deb_owner(${path} owner)
    endif()
    if(NOT owner)
      message(FATAL_ERROR "package.cmake: no Debian package holds ${name} (${word} of STOAT_RUNTIME_LIBS)")
    endif()
    list(APPEND STOAT_DEB_LINK_DEPENDS ${owner})
  endif()
endforeach()
list(REMOVE_DUPLICATES STOAT_DEB_LINK_DEPENDS)
list(APPEND STOAT_DEB_LINK_DEPENDS gcc)
list(JOIN STOAT_DEB_LINK_DEPENDS ", " STOAT_DEB_LINK_DEPENDS_TEXT)
message(STATUS "Debian package: Depends (to link programs) ${STOAT_DEB_LINK_DEPENDS_TEXT}, and dpkg-shlibdeps' own")

set(STOAT_DEB_MAINTAINER "stoat maintainers <maintainers@stoat.invalid>" CACHE STRING
  "The Maintainer field of the Debian package")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME stoat)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "the stoat project")
set(CPACK_PACKAGE_CONTACT ${STOAT_DEB_MAINTAINER})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Kafka stream processing compiled to native code")
# The extended description, wrapped as dpkg shows it (CPack keeps the lines).
set(CPACK_PACKAGE_DESCRIPTION "stoatc compiles a .stoat file, a typed description of a
stream-processing application in Kafka Streams' vocabulary (streams,
filters, maps, tables and aggregations, windows, joins), into
specialised C, and links it with the stoat runtime (librdkafka, RocksDB,
libyaml, libmicrohttpd) into one native binary: a Kafka consumer-group
member with at-least-once or exactly-once processing, state in RocksDB
with changelog topics, a replay driver for files, and an operations
endpoint for probes and Prometheus. This package holds the compiler, the
runtime (static and shared) and its headers, the standard library, make
and CMake integration, and the man pages stoatc(1), stoat-app(1) and
stoat(5).")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${STOAT_DEB_MAINTAINER})
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# dpkg-shlibdeps' dependencies are added to these.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS ${STOAT_DEB_LINK_DEPENDS_TEXT})
# stoat.mk and stoat-runtime.pc; CMake projects (stoat_add_topology);
# stoatc graph -o FILE.svg runs Graphviz's dot.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "make, pkgconf | pkg-config")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "cmake, graphviz")
# A shlibs file for libstoat-runtime.so and the ldconfig trigger.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
include(CPack)
