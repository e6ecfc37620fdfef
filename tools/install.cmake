# `cmake --install` rules and the Debian package (`cpack -G DEB` in the build folder), included by
# CMakeLists.txt. Layout (GNU coding standards' directories): PREFIX/bin/tbdrsim finds its data in
# PREFIX/share/tbdrsim (tools/commands/install_paths.h), the man page in share/man/man1, bash completion
# in share/bash-completion/completions, the documentation in share/doc/tbdrsim.
include(GNUInstallDirs)
set(TBDR_DATA_DIR ${CMAKE_INSTALL_DATADIR}/tbdrsim)

install(TARGETS tbdrsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# Every bundled trace (default, features, validation with its measurements, the JSON Schemas...).
install(DIRECTORY traces DESTINATION ${TBDR_DATA_DIR} PATTERN "__pycache__" EXCLUDE)
# The presets are embedded in the binary; the files are installed as examples to copy and edit.
install(DIRECTORY models/presets DESTINATION ${TBDR_DATA_DIR} FILES_MATCHING PATTERN "*.json")

# The capture tools: the scripts and every Python module beside them (tools/*.py and any package
# folder tools/NAME/ holding an __init__.py), so the modules they import travel with them. The
# scripts find their modules through their own real path, so links in bin/ work.
set(TBDR_TOOL_SCRIPTS tools/rdc2trace tools/capture tools/lavapipe_run)
install(PROGRAMS ${TBDR_TOOL_SCRIPTS} DESTINATION ${TBDR_DATA_DIR}/tools)
file(GLOB TBDR_TOOL_MODULES CONFIGURE_DEPENDS tools/*.py)
install(FILES ${TBDR_TOOL_MODULES} DESTINATION ${TBDR_DATA_DIR}/tools)
file(GLOB TBDR_TOOL_PACKAGE_INITS CONFIGURE_DEPENDS tools/*/__init__.py)
foreach(init IN LISTS TBDR_TOOL_PACKAGE_INITS)
  get_filename_component(package_dir ${init} DIRECTORY)
  install(DIRECTORY ${package_dir} DESTINATION ${TBDR_DATA_DIR}/tools FILES_MATCHING PATTERN "*.py"
          PATTERN "__pycache__" EXCLUDE)
endforeach()
# bin/ names: rdc2trace as the documentation calls it; the generic names carry a tbdrsim- prefix.
set(TBDR_LINKS_DIR ${CMAKE_BINARY_DIR}/install-links)
file(MAKE_DIRECTORY ${TBDR_LINKS_DIR})
foreach(pair rdc2trace:rdc2trace tbdrsim-capture:capture tbdrsim-lavapipe-run:lavapipe_run)
  string(REPLACE ":" ";" pair ${pair})
  list(GET pair 0 link)
  list(GET pair 1 script)
  file(CREATE_LINK ../${TBDR_DATA_DIR}/tools/${script} ${TBDR_LINKS_DIR}/${link} SYMBOLIC)
  install(PROGRAMS ${TBDR_LINKS_DIR}/${link} DESTINATION ${CMAKE_INSTALL_BINDIR})
endforeach()
if(TBDR_HAVE_REFRENDER)
  install(PROGRAMS $<TARGET_FILE:refrender> DESTINATION ${CMAKE_INSTALL_BINDIR} RENAME tbdrsim-refrender OPTIONAL)
endif()

# The man page (help2man at build time) and bash completion.
if(TBDR_HELP2MAN)
  install(FILES ${CMAKE_BINARY_DIR}/tbdrsim.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()
install(FILES tools/completion/tbdrsim.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME tbdrsim)

# Documentation: the READMEs and the worked examples.
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
foreach(readme traces models bench tests)
  if(EXISTS ${CMAKE_SOURCE_DIR}/${readme}/README.md)
    install(FILES ${readme}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} RENAME ${readme}.md)
  endif()
endforeach()
install(DIRECTORY tools/doc/ DESTINATION ${CMAKE_INSTALL_DOCDIR})  # install.md, python.md and their images

# The Python module `tbdrsim` (tools/python/tbdrsim: it runs the installed binary). Where python3
# looks on Debian: /usr/lib/python3/dist-packages for PREFIX /usr (the package), else
# PREFIX/lib/python3.MINOR/dist-packages (/usr/local's). Chosen at install time, as CPack installs
# into /usr whatever the configured prefix.
find_package(Python3 COMPONENTS Interpreter)
set(TBDR_PYTHON_MINOR ${Python3_VERSION_MINOR})
if(NOT TBDR_PYTHON_MINOR)
  set(TBDR_PYTHON_MINOR 11)  # Debian 12's python3
endif()
install(CODE "
  if(CMAKE_INSTALL_PREFIX STREQUAL \"/usr\")
    set(tbdr_python_dir \"\${CMAKE_INSTALL_PREFIX}/lib/python3/dist-packages\")
  else()
    set(tbdr_python_dir \"\${CMAKE_INSTALL_PREFIX}/lib/python3.${TBDR_PYTHON_MINOR}/dist-packages\")
  endif()
  file(INSTALL \"${CMAKE_SOURCE_DIR}/tools/python/tbdrsim\" DESTINATION \"\${tbdr_python_dir}\"
       FILES_MATCHING PATTERN \"*.py\" PATTERN \"__pycache__\" EXCLUDE)
")

# The Debian package. Depends: the shared libraries the binaries link, looked up by dpkg-shlibdeps
# (CPack's CPACK_DEBIAN_PACKAGE_SHLIBDEPS), plus python3 for the tools and the module.
set(CPACK_PACKAGE_NAME tbdrsim)
set(CPACK_PACKAGE_VENDOR "tbdrsim")
set(CPACK_PACKAGE_CONTACT "tbdrsim maintainers <tbdrsim@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "cycle-approximate simulator of tile-based deferred rendering GPUs")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "python3")
# rdc2trace's decoders (numpy, Pillow) and RenderDoc; pandas for tbdrsim.sweep()'s DataFrame.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3-numpy, python3-pil, python3-pandas")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3-renderdoc, renderdoccmd, xvfb, python3-matplotlib, bash-completion")
set(CPACK_GENERATOR DEB)
include(CPack)
