# OneShader's CMake package (docs/cmake.md).
#
#   find_package(OneShader 0.1 CONFIG REQUIRED PATHS <checkout>/cmake)   # or -DOneShader_DIR=<checkout>/cmake
#
# Components: `compiler` (the imported executable OneShader::compiler and the function
# oneshader_add_shaders) and `c_api` (the imported libraries OneShader::oneshader_c,
# OneShader::oneshader_c_static, OneShader::oneshader_c_shared). Without COMPONENTS both are
# required.
#
# Where things are looked for (cache variables; set them to point elsewhere):
#   ONESHADER_ROOT         the checkout (default: this folder's parent)
#   ONESHADER_EXECUTABLE   the `oneshader` executable (default: found in
#                          ONESHADER_ROOT/target/release, then target/debug, then PATH)
#   ONESHADER_LIBRARY_DIR  the folder of liboneshader_c.a / liboneshader_c.so (default:
#                          ONESHADER_ROOT/target/release, then target/debug)
#   ONESHADER_INCLUDE_DIR  the folder of oneshader.h (default: ONESHADER_ROOT/capi/include)
#   ONESHADER_SHARED       OFF (default): OneShader::oneshader_c is the static library; ON: the shared one

if(CMAKE_VERSION VERSION_LESS 3.20)
  set(OneShader_FOUND FALSE)
  set(OneShader_NOT_FOUND_MESSAGE
      "OneShader's CMake package needs CMake 3.20 or newer (DEPFILE with the Makefile generators); this is CMake ${CMAKE_VERSION}")
  return()
endif()
# The policies the functions below record when they are defined (CMP0116: Ninja rewrites
# DEPFILE paths relative to the build tree).
cmake_policy(VERSION 3.20...3.25)

get_filename_component(_oneshader_default_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
set(ONESHADER_ROOT "${_oneshader_default_root}" CACHE PATH
    "OneShader checkout: where target/release, target/debug and capi/include are looked for")
set(ONESHADER_SHARED OFF CACHE BOOL
    "OneShader::oneshader_c is the shared library liboneshader_c.so (OFF: the static liboneshader_c.a)")

set(_oneshader_lib_hints)
if(ONESHADER_LIBRARY_DIR)
  list(APPEND _oneshader_lib_hints "${ONESHADER_LIBRARY_DIR}")
endif()
if(DEFINED ENV{CARGO_TARGET_DIR})
  list(APPEND _oneshader_lib_hints "$ENV{CARGO_TARGET_DIR}/release" "$ENV{CARGO_TARGET_DIR}/debug")
endif()
list(APPEND _oneshader_lib_hints "${ONESHADER_ROOT}/target/release" "${ONESHADER_ROOT}/target/debug")
list(JOIN _oneshader_lib_hints ", " _oneshader_where)

if(NOT OneShader_FIND_COMPONENTS)
  set(OneShader_FIND_COMPONENTS compiler c_api)
  set(OneShader_FIND_REQUIRED_compiler TRUE)
  set(OneShader_FIND_REQUIRED_c_api TRUE)
endif()
set(_oneshader_missing)

foreach(_oneshader_component IN LISTS OneShader_FIND_COMPONENTS)
  if(NOT _oneshader_component MATCHES "^(compiler|c_api)$")
    list(APPEND _oneshader_missing
         "unknown component `${_oneshader_component}` (components: compiler, c_api)")
    set(OneShader_${_oneshader_component}_FOUND FALSE)
  endif()
endforeach()

# The compiler.
if("compiler" IN_LIST OneShader_FIND_COMPONENTS)
  find_program(ONESHADER_EXECUTABLE oneshader HINTS ${_oneshader_lib_hints}
               DOC "The `oneshader` executable")
  if(ONESHADER_EXECUTABLE)
    if(NOT TARGET OneShader::compiler)
      add_executable(OneShader::compiler IMPORTED)
      set_target_properties(OneShader::compiler PROPERTIES IMPORTED_LOCATION "${ONESHADER_EXECUTABLE}")
    endif()
    set(OneShader_compiler_FOUND TRUE)
  else()
    set(OneShader_compiler_FOUND FALSE)
    list(APPEND _oneshader_missing
         "the `oneshader` executable is not in ${_oneshader_where} nor on PATH: build it with `cargo build --release -p oneshader --bin oneshader` in ${ONESHADER_ROOT}, or set ONESHADER_EXECUTABLE")
  endif()
endif()

# The C API.
if("c_api" IN_LIST OneShader_FIND_COMPONENTS)
  find_path(ONESHADER_INCLUDE_DIR oneshader.h HINTS "${ONESHADER_ROOT}/capi/include" NO_DEFAULT_PATH
            DOC "The folder of oneshader.h")
  find_library(ONESHADER_C_STATIC_LIBRARY NAMES liboneshader_c.a HINTS ${_oneshader_lib_hints}
               NO_DEFAULT_PATH DOC "liboneshader_c.a")
  find_library(ONESHADER_C_SHARED_LIBRARY
               NAMES "${CMAKE_SHARED_LIBRARY_PREFIX}oneshader_c${CMAKE_SHARED_LIBRARY_SUFFIX}"
               HINTS ${_oneshader_lib_hints} NO_DEFAULT_PATH DOC "liboneshader_c.so")
  set(OneShader_c_api_FOUND TRUE)
  if(NOT ONESHADER_INCLUDE_DIR)
    set(OneShader_c_api_FOUND FALSE)
    list(APPEND _oneshader_missing
         "oneshader.h is not in ${ONESHADER_ROOT}/capi/include: set ONESHADER_INCLUDE_DIR or ONESHADER_ROOT")
  endif()
  if(ONESHADER_SHARED)
    set(_oneshader_chosen "${ONESHADER_C_SHARED_LIBRARY}")
  else()
    set(_oneshader_chosen "${ONESHADER_C_STATIC_LIBRARY}")
  endif()
  if(NOT _oneshader_chosen)
    set(OneShader_c_api_FOUND FALSE)
    list(APPEND _oneshader_missing
         "the C API library (ONESHADER_SHARED=${ONESHADER_SHARED}) is not in ${_oneshader_where}: build it with `cargo build --release -p oneshader-capi` in ${ONESHADER_ROOT}, or set ONESHADER_LIBRARY_DIR")
  endif()
  if(OneShader_c_api_FOUND)
    if(ONESHADER_C_STATIC_LIBRARY AND NOT TARGET OneShader::oneshader_c_static)
      add_library(OneShader::oneshader_c_static STATIC IMPORTED)
      set(_oneshader_static_deps)
      if(UNIX)
        # What Rust's standard library needs from the system (docs/c-api.md's link line).
        set(_oneshader_static_deps pthread dl m)
      endif()
      set_target_properties(OneShader::oneshader_c_static PROPERTIES
        IMPORTED_LOCATION "${ONESHADER_C_STATIC_LIBRARY}"
        IMPORTED_LINK_INTERFACE_LANGUAGES C
        INTERFACE_INCLUDE_DIRECTORIES "${ONESHADER_INCLUDE_DIR}"
        INTERFACE_LINK_LIBRARIES "${_oneshader_static_deps}")
    endif()
    if(ONESHADER_C_SHARED_LIBRARY AND NOT TARGET OneShader::oneshader_c_shared)
      add_library(OneShader::oneshader_c_shared SHARED IMPORTED)
      set_target_properties(OneShader::oneshader_c_shared PROPERTIES
        IMPORTED_LOCATION "${ONESHADER_C_SHARED_LIBRARY}"
        # Cargo gives the library no SONAME: link it by name, with the build tree's rpath.
        IMPORTED_NO_SONAME TRUE
        INTERFACE_INCLUDE_DIRECTORIES "${ONESHADER_INCLUDE_DIR}")
    endif()
    if(NOT TARGET OneShader::oneshader_c)
      add_library(OneShader::oneshader_c INTERFACE IMPORTED)
      if(ONESHADER_SHARED)
        set_target_properties(OneShader::oneshader_c PROPERTIES INTERFACE_LINK_LIBRARIES OneShader::oneshader_c_shared)
      else()
        set_target_properties(OneShader::oneshader_c PROPERTIES INTERFACE_LINK_LIBRARIES OneShader::oneshader_c_static)
      endif()
    endif()
  endif()
endif()

set(OneShader_FOUND TRUE)
foreach(_oneshader_component IN LISTS OneShader_FIND_COMPONENTS)
  if(OneShader_FIND_REQUIRED_${_oneshader_component} AND NOT OneShader_${_oneshader_component}_FOUND)
    set(OneShader_FOUND FALSE)
  endif()
endforeach()
if(NOT OneShader_FOUND)
  list(JOIN _oneshader_missing "\n  " _oneshader_text)
  set(OneShader_NOT_FOUND_MESSAGE "OneShader (${CMAKE_CURRENT_LIST_DIR}):\n  ${_oneshader_text}")
  return()
endif()

# The file extension of each `oneshader compile --target` (docs/build.md).
function(_oneshader_extension target out)
  set(targets spirv spirv-asm glsl wgsl msl osir ir reflection)
  set(extensions spv spvasm glsl wgsl metal osir ir json)
  list(FIND targets "${target}" i)
  if(i LESS 0)
    list(JOIN targets ", " known)
    message(FATAL_ERROR "oneshader_add_shaders: unknown target `${target}` (targets: ${known})")
  endif()
  list(GET extensions ${i} ext)
  set(${out} "${ext}" PARENT_SCOPE)
endfunction()

# One output: a custom command running `oneshader compile` with a dependency file. Its
# arguments are kept in OUT.args, rewritten only when they change, so changing them rebuilds
# this output alone, with either generator.
function(_oneshader_output out source description)
  set(args ${ARGN})
  get_filename_component(dir "${out}" DIRECTORY)
  file(MAKE_DIRECTORY "${dir}")
  string(REPLACE ";" "\n" text "${args}")
  set(old "")
  if(EXISTS "${out}.args")
    file(READ "${out}.args" old)
  endif()
  if(NOT old STREQUAL text)
    file(WRITE "${out}.args" "${text}")
  endif()
  file(RELATIVE_PATH shown "${CMAKE_BINARY_DIR}" "${out}")
  add_custom_command(
    OUTPUT "${out}"
    COMMAND OneShader::compiler compile "${source}" ${args} -MD -MF "${out}.d" -o "${out}"
    DEPENDS "${source}" "${out}.args" "$<TARGET_FILE:OneShader::compiler>"
    DEPFILE "${out}.d"
    COMMENT "OneShader: ${description} -> ${shown}"
    VERBATIM)
endfunction()

# oneshader_add_shaders(<target>
#     MANIFEST <oneshader.toml>              # every output of a manifest, or
#     FILES <a.hlsl>... PROFILE <p> [ENTRY <e>] [TARGETS <t>...] [INCLUDE_DIRS <d>...]
#           [DEFINES <NAME[=V]>...] [OPTIONS <oneshader compile options>...]
#     [OUTPUT_DIR <dir>] [OUTPUTS_VAR <var>])
# See docs/cmake.md.
function(oneshader_add_shaders target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "MANIFEST;PROFILE;ENTRY;OUTPUT_DIR;OUTPUTS_VAR"
                        "FILES;TARGETS;INCLUDE_DIRS;DEFINES;OPTIONS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "oneshader_add_shaders(${target}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_MANIFEST AND NOT arg_FILES)
    message(FATAL_ERROR "oneshader_add_shaders(${target}): give MANIFEST <file> or FILES <file>...")
  endif()
  if(arg_MANIFEST AND arg_FILES)
    message(FATAL_ERROR "oneshader_add_shaders(${target}): give MANIFEST or FILES, not both")
  endif()
  if(arg_OUTPUT_DIR)
    get_filename_component(out_dir "${arg_OUTPUT_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  else()
    set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/oneshader/${target}")
  endif()
  set(outputs)

  if(arg_MANIFEST)
    foreach(option PROFILE ENTRY TARGETS INCLUDE_DIRS DEFINES OPTIONS)
      if(arg_${option})
        message(FATAL_ERROR
                "oneshader_add_shaders(${target}): ${option} is for FILES; a MANIFEST states it in the manifest")
      endif()
    endforeach()
    get_filename_component(manifest "${arg_MANIFEST}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(NOT EXISTS "${manifest}")
      message(FATAL_ERROR "oneshader_add_shaders(${target}): no manifest ${manifest}")
    endif()
    # Editing the manifest reconfigures, which lists its outputs again.
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${manifest}")
    set(script "${CMAKE_CURRENT_BINARY_DIR}/${target}.oneshader.cmake")
    execute_process(
      COMMAND "${ONESHADER_EXECUTABLE}" build "${manifest}" --out-dir "${out_dir}" --emit-cmake "${script}"
      RESULT_VARIABLE status
      ERROR_VARIABLE errors)
    if(NOT status EQUAL 0)
      message(FATAL_ERROR
              "oneshader_add_shaders(${target}): `oneshader build ${manifest} --emit-cmake` failed (${status}):\n${errors}")
    endif()
    include("${script}")
    if(ONESHADER_OUTPUT_COUNT GREATER 0)
      math(EXPR last "${ONESHADER_OUTPUT_COUNT} - 1")
      foreach(i RANGE ${last})
        _oneshader_output("${ONESHADER_OUTPUT_${i}}" "${ONESHADER_SOURCE_${i}}"
                          "${ONESHADER_VARIANT_${i}}" ${ONESHADER_ARGS_${i}})
        list(APPEND outputs "${ONESHADER_OUTPUT_${i}}")
      endforeach()
    endif()
  else()
    if(NOT arg_PROFILE)
      message(FATAL_ERROR "oneshader_add_shaders(${target}): FILES needs PROFILE (e.g. cs_6_0)")
    endif()
    if(NOT arg_ENTRY)
      set(arg_ENTRY main)
    endif()
    if(NOT arg_TARGETS)
      set(arg_TARGETS spirv)
    endif()
    set(common -T "${arg_PROFILE}" -E "${arg_ENTRY}")
    foreach(dir IN LISTS arg_INCLUDE_DIRS)
      get_filename_component(dir "${dir}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
      list(APPEND common -I "${dir}")
    endforeach()
    foreach(define IN LISTS arg_DEFINES)
      list(APPEND common -D "${define}")
    endforeach()
    list(APPEND common ${arg_OPTIONS})
    foreach(file IN LISTS arg_FILES)
      get_filename_component(source "${file}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
      get_filename_component(name "${source}" NAME_WLE)
      foreach(t IN LISTS arg_TARGETS)
        _oneshader_extension("${t}" ext)
        set(out "${out_dir}/${name}.${ext}")
        _oneshader_output("${out}" "${source}" "${file}:${arg_ENTRY} (${t})" ${common} --target "${t}")
        list(APPEND outputs "${out}")
      endforeach()
    endforeach()
  endif()

  if(NOT TARGET ${target})
    add_custom_target(${target} ALL)
  endif()
  target_sources(${target} PRIVATE ${outputs})
  set_property(TARGET ${target} APPEND PROPERTY ONESHADER_OUTPUTS ${outputs})
  if(arg_OUTPUTS_VAR)
    set(${arg_OUTPUTS_VAR} ${outputs} PARENT_SCOPE)
  endif()
endfunction()
