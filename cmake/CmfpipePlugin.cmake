# cmfpipe_add_plugin(<target> SOURCES <files...> [OUTPUT_DIR <dir>] [INSTALL] [LIBS <targets...>])
#
# Builds a cmfpipe plugin: a MODULE shared object that links only the SDK, with hidden
# visibility (only the Boost.DLL alias is exported) and -Wl,--no-undefined so a missing symbol
# fails the link instead of the load. Used in tree and, once installed, by out-of-tree plugins.
function(cmfpipe_add_plugin target)
  cmake_parse_arguments(ARG "INSTALL" "OUTPUT_DIR;OUTPUT_NAME" "SOURCES;LIBS" ${ARGN})
  add_library(${target} MODULE ${ARG_SOURCES})
  if(TARGET cmfpipe_sdk)
    target_link_libraries(${target} PRIVATE cmfpipe_sdk cmfpipe_warnings)
    target_compile_definitions(${target} PRIVATE CMFPIPE_BUILD_ID="${CMFPIPE_BUILD_ID}")
  else()
    target_link_libraries(${target} PRIVATE cmfpipe::sdk)
  endif()
  if(ARG_LIBS)
    target_link_libraries(${target} PRIVATE ${ARG_LIBS})
  endif()
  set(output_name ${target})
  if(ARG_OUTPUT_NAME)
    set(output_name ${ARG_OUTPUT_NAME})
  endif()
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    OUTPUT_NAME ${output_name}
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    INSTALL_RPATH "$ORIGIN/../..")
  # clang links its sanitizer runtimes into the executable only, so a sanitized plugin leaves
  # those references to the loader; the unsanitized build keeps catching missing symbols.
  if(NOT (CMFPIPE_SANITIZE AND CMAKE_CXX_COMPILER_ID STREQUAL "Clang"))
    target_link_options(${target} PRIVATE -Wl,--no-undefined)
  endif()
  if(ARG_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${ARG_OUTPUT_DIR}")
  elseif(DEFINED CMFPIPE_PLUGIN_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${CMFPIPE_PLUGIN_OUTPUT_DIR}")
  endif()
  if(ARG_INSTALL)
    install(TARGETS ${target} LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}/cmfpipe/plugins")
    if(TARGET cmfpipe_bundle)
      add_dependencies(cmfpipe_bundle ${target})
    endif()
  endif()
endfunction()
