# The version of OneShader's CMake package (docs/cmake.md): the workspace's version in
# Cargo.toml (tests/cmake_package.rs checks they agree). `find_package(OneShader X.Y)` is met
# by this version when X.Y is not newer and has the same major version (for 0.x releases,
# the same minor version too).
set(PACKAGE_VERSION "0.1.0")

string(REPLACE "." ";" _oneshader_parts "${PACKAGE_VERSION}")
list(GET _oneshader_parts 0 _oneshader_major)
list(GET _oneshader_parts 1 _oneshader_minor)
set(PACKAGE_VERSION_COMPATIBLE FALSE)
if(NOT PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION
   AND PACKAGE_FIND_VERSION_MAJOR EQUAL _oneshader_major
   AND (NOT _oneshader_major EQUAL 0 OR PACKAGE_FIND_VERSION_MINOR EQUAL _oneshader_minor))
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
endif()
if(PACKAGE_FIND_VERSION VERSION_EQUAL PACKAGE_VERSION)
  set(PACKAGE_VERSION_EXACT TRUE)
endif()
