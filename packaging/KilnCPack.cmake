# CPack: .deb and .tar.gz on Linux (tested by the `packaging` ctest label); NSIS/WiX on Windows and
# DragNDrop on macOS are configured but untested (packaging/README.md says what each still needs).
set(CPACK_PACKAGE_NAME "kiln")
set(CPACK_PACKAGE_VENDOR "The Kiln developers")
set(CPACK_PACKAGE_CONTACT "The Kiln developers <kiln@users.noreply.github.com>")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Inspector and tuner for torch.compile (PyTorch Inductor) caches")
set(CPACK_PACKAGE_HOMEPAGE_URL "${KILN_HOMEPAGE}")
set(CPACK_PACKAGE_INSTALL_DIRECTORY "Kiln")
set(CPACK_PACKAGE_EXECUTABLES "kiln;Kiln")
set(CPACK_RESOURCE_FILE_README "${CMAKE_SOURCE_DIR}/README.md")
set(CPACK_STRIP_FILES ON)
set(CPACK_SOURCE_IGNORE_FILES "/\\\\.git/;/build[^/]*/;/dist/")

if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
  set(CPACK_GENERATOR "DEB;TGZ")
  # .tar.gz: one top-level folder with bin/, libexec/kiln/, share/: runs from wherever it is unpacked.
  # CPACK_ARCHIVE_FILE_NAME only applies per component; the .deb keeps its own name (DEB-DEFAULT).
  set(CPACK_PACKAGE_FILE_NAME "kiln-${PROJECT_VERSION}-linux-${CMAKE_SYSTEM_PROCESSOR}")
  set(CPACK_INCLUDE_TOPLEVEL_DIRECTORY ON)

  set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
  set(CPACK_DEBIAN_PACKAGE_SECTION "devel")
  set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
  # Run-time dependencies come from the binaries themselves (dpkg-shlibdeps): Qt 6, QCustomPlot,
  # OpenSSL, libstdc++ ... exactly the Debian packages they link.
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
  # Not linked but used: a C++ compiler for kernel builds, Qt's platform plugins for the GUI.
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "g++ | c++-compiler")
  set(CPACK_DEBIAN_PACKAGE_SUGGESTS "nvidia-cuda-toolkit, python3-torch")
  if(KILN_BUILD_GUI)
    set(CPACK_DEBIAN_PACKAGE_DEPENDS "qt6-qpa-plugins")
    set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "${CPACK_DEBIAN_PACKAGE_RECOMMENDS}, qt6-svg-plugins")
  endif()
  set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
  # Debian's description: CPack takes the synopsis from CPACK_PACKAGE_DESCRIPTION_SUMMARY and indents
  # this extended description under it.
  set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
"Kiln reads the compile cache of PyTorch Inductor without executing it:
what is cached per category and how much space it takes, which cached
graph is served for given input sizes and why a cache key missed. It
evicts least recently used entries to keep the cache at a chosen size,
and benchmarks and tunes Triton and C++ kernels per device.
.
This package contains the desktop application (kiln), the command line
tool (kiln-cli), the kernel worker, examples and a small sample cache.")
elseif(WIN32)
  # Untested. NSIS needs makensis on PATH; WiX needs the WiX 3 toolset and a license file (RTF/TXT).
  set(CPACK_GENERATOR "NSIS;WIX")
  set(CPACK_NSIS_DISPLAY_NAME "Kiln")
  set(CPACK_NSIS_PACKAGE_NAME "Kiln ${PROJECT_VERSION}")
  set(CPACK_NSIS_MODIFY_PATH ON)
  set(CPACK_NSIS_URL_INFO_ABOUT "${KILN_HOMEPAGE}")
  set(CPACK_NSIS_CREATE_ICONS_EXTRA "CreateShortCut '$SMPROGRAMS\\\\$STARTMENU_FOLDER\\\\Kiln.lnk' '$INSTDIR\\\\bin\\\\kiln.exe'")
  # Fixed forever: lets a newer .msi replace an installed older one.
  set(CPACK_WIX_UPGRADE_GUID "6F1E0B53-4C1D-4F7B-9A3E-2B8C5D7E9A10")
  set(CPACK_WIX_PRODUCT_NAME "Kiln")
  if(EXISTS "${CMAKE_SOURCE_DIR}/LICENSE")
    set(CPACK_RESOURCE_FILE_LICENSE "${CMAKE_SOURCE_DIR}/LICENSE")
  endif()
elseif(APPLE)
  # Untested. Needs the kiln target built as a MACOSX_BUNDLE and macdeployqt run on it before cpack.
  set(CPACK_GENERATOR "DragNDrop")
  set(CPACK_DMG_VOLUME_NAME "Kiln ${PROJECT_VERSION}")
  set(CPACK_DMG_FORMAT "UDZO")
endif()

include(CPack)
