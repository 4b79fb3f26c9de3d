# cmake --install: what a stoat user needs, under the prefix.
#
#   bin/stoatc                              the compiler
#   lib/libstoat-runtime.a, .so             the runtime and standard library
#   include/stoat/runtime.h, avro.h, std.h  their headers (extern C code uses them)
#   share/stoat/stdlib/                     the standard library's source and reference
#   share/stoat/runtime-src/                the runtime's sources (for PGO builds)
#   share/stoat/stoat.mk                    make rules (include it)
#   lib/cmake/Stoat/                        find_package(Stoat): targets, stoat_add_topology()
#   lib/pkgconfig/stoat-runtime.pc          compiler and linker flags
#   share/man/man1/stoatc.1.gz, stoat-app.1.gz, man5/stoat.5.gz   the man pages
#
# (lib/ is CMAKE_INSTALL_LIBDIR.)  Nothing installed names the prefix: stoatc
# finds the runtime from its own location, stoat.mk, the CMake package
# and stoat-runtime.pc from theirs, so `cmake --install build --prefix P`
# works for any P and the tree can be moved.  A build with STOAT_SANITIZE
# installs sanitized libraries, which only sanitized programs can link.
include(CMakePackageConfigHelpers)

install(TARGETS stoatc stoat-runtime stoat-runtime-shared EXPORT StoatTargets
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES runtime/include/stoat/runtime.h runtime/include/stoat/avro.h stdlib/include/stoat/std.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/stoat)
install(FILES stdlib/std.stoat stdlib/README.md
  DESTINATION ${CMAKE_INSTALL_DATADIR}/stoat/stdlib)
# The runtime's sources: `stoatc build --pgo-*` compiles them with the
# program so that the profile covers the runtime too.
# Every private header goes with them (one per layer: runtime/src/*.h).
file(GLOB STOAT_RUNTIME_PRIVATE_HEADERS CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/runtime/src/*.h")
install(FILES ${STOAT_RUNTIME_SOURCES} ${STOAT_RUNTIME_PRIVATE_HEADERS}
  DESTINATION ${CMAKE_INSTALL_DATADIR}/stoat/runtime-src)

# The CMake package.
set(STOAT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Stoat)
install(EXPORT StoatTargets NAMESPACE Stoat:: DESTINATION ${STOAT_CMAKE_DIR})
configure_package_config_file(cmake/StoatConfig.cmake.in ${PROJECT_BINARY_DIR}/StoatConfig.cmake
  INSTALL_DESTINATION ${STOAT_CMAKE_DIR})
# 0.x: a new minor version may change the runtime's interface.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/StoatConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/StoatConfig.cmake ${PROJECT_BINARY_DIR}/StoatConfigVersion.cmake
  cmake/StoatFunctions.cmake
  DESTINATION ${STOAT_CMAKE_DIR})

# stoat-runtime.pc and stoat.mk locate the prefix relative to themselves.
foreach(dir BINDIR LIBDIR INCLUDEDIR DATADIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${dir}}")
    message(FATAL_ERROR "CMAKE_INSTALL_${dir} must be relative to the prefix to install stoat")
  endif()
endforeach()
file(RELATIVE_PATH STOAT_PC_TO_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
file(RELATIVE_PATH STOAT_MK_TO_PREFIX "/prefix/${CMAKE_INSTALL_DATADIR}/stoat" "/prefix")
configure_file(cmake/stoat-runtime.pc.in ${PROJECT_BINARY_DIR}/stoat-runtime.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/stoat-runtime.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
configure_file(make/stoat.mk.in ${PROJECT_BINARY_DIR}/stoat.mk @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/stoat.mk DESTINATION ${CMAKE_INSTALL_DATADIR}/stoat)

# The man pages (man/, hand-written roff; tests/man checks them against the
# programs), gzipped as Debian wants them: stoatc(1), stoat-app(1) for the
# generated binaries' commands, stoat(5) for the settings file.
set(STOAT_MAN_PAGES stoatc.1 stoat-app.1 stoat.5)
set(STOAT_MAN_OUTPUTS)
file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/man)
foreach(page IN LISTS STOAT_MAN_PAGES)
  string(REGEX MATCH "[0-9]$" section ${page})
  set(out ${PROJECT_BINARY_DIR}/man/${page}.gz)
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DINPUT=${PROJECT_SOURCE_DIR}/man/${page} -DOUTPUT=${out}
            -P ${PROJECT_SOURCE_DIR}/cmake/gzip.cmake
    DEPENDS ${PROJECT_SOURCE_DIR}/man/${page} ${PROJECT_SOURCE_DIR}/cmake/gzip.cmake
    COMMENT "Compressing the man page ${page}")
  list(APPEND STOAT_MAN_OUTPUTS ${out})
  install(FILES ${out} DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section})
endforeach()
add_custom_target(man-pages ALL DEPENDS ${STOAT_MAN_OUTPUTS})
