# install() rules and the two Debian packages (CPack DEB, built by
# installer/package.sh; docs/install.md "Install the packages").
#
#   medsynth-engine (component engine): the engine for workstations and cluster
#     nodes, no Qt, no VTK; its wrapper and medsynth-libtorch; the job templates,
#     man page, bash completion and docs.
#   medsynth (component console): the console, its .desktop entry, icon, MIME
#     types and man page; depends on medsynth-engine.
#
# Layout under the prefix (/usr in the packages):
#   bin/medsynth-engine         wrapper: says how to set LibTorch up when it is missing
#   bin/medsynth-libtorch       names the LibTorch to use (a link, below)
#   bin/medsynth -> ../lib/medsynth/bin/medsynth
#   lib/medsynth/bin/           the real executables
#   lib/medsynth/libtorch       link to the user's LibTorch (made by medsynth-libtorch)
# LibTorch is not bundled: the CUDA build with its runtime is 3-4 GB (the node
# usually has its own PyTorch anyway), so the engine finds it through the link,
# with RUNPATH $ORIGIN/../libtorch/lib: relative, the same in a scratch root.
include_guard(GLOBAL)

set(MEDSYNTH_PRIVATE_DIR lib/medsynth)
set(MEDSYNTH_SHARE_DIR share/medsynth)
set(MEDSYNTH_GENERATED_SHARE ${CMAKE_BINARY_DIR}/share)

# The real engine, and its RUNPATH rewritten whole: the build one also holds the
# absolute -rpath of the wheel's nvidia/ folders (cmake/MedsynthDependencies.cmake),
# which CMake's own install RPATH handling would leave in.
install(TARGETS medsynth-engine RUNTIME DESTINATION ${MEDSYNTH_PRIVATE_DIR}/bin COMPONENT engine)
install(CODE "file(RPATH_SET FILE \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${MEDSYNTH_PRIVATE_DIR}/bin/medsynth-engine\"
                             NEW_RPATH \"\\\$ORIGIN/../libtorch/lib\")" COMPONENT engine)
string(REGEX REPLACE "^([0-9]+\\.[0-9]+).*" "\\1" MEDSYNTH_TORCH_SERIES "${Torch_VERSION}")
configure_file(${PROJECT_SOURCE_DIR}/installer/package/medsynth-engine.in ${CMAKE_BINARY_DIR}/package/medsynth-engine @ONLY)
configure_file(${PROJECT_SOURCE_DIR}/installer/package/medsynth-libtorch.in ${CMAKE_BINARY_DIR}/package/medsynth-libtorch @ONLY)
install(PROGRAMS ${CMAKE_BINARY_DIR}/package/medsynth-engine ${CMAKE_BINARY_DIR}/package/medsynth-libtorch
        DESTINATION bin COMPONENT engine)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/resources/jobs ${PROJECT_SOURCE_DIR}/resources/clusters
        DESTINATION ${MEDSYNTH_SHARE_DIR} COMPONENT engine)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION share/doc/medsynth-engine COMPONENT engine)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION share/doc/medsynth-engine RENAME copyright COMPONENT engine)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION share/doc/medsynth-engine/docs COMPONENT engine
        FILES_MATCHING PATTERN "*.md" PATTERN "*.png")

# Man pages (help2man, from each binary's --help and its verbs' --help) and the
# engine's bash completion (`medsynth-engine completion bash`): generated at
# build time, never kept by hand. Without help2man (README command (1) does not
# install it) they are skipped; installer/package.sh installs it.
find_program(MEDSYNTH_HELP2MAN help2man)
set(_medsynth_generated ${MEDSYNTH_GENERATED_SHARE}/bash-completion/completions/medsynth-engine)
add_custom_command(OUTPUT ${MEDSYNTH_GENERATED_SHARE}/bash-completion/completions/medsynth-engine
  COMMAND ${CMAKE_COMMAND} -E make_directory ${MEDSYNTH_GENERATED_SHARE}/bash-completion/completions
  COMMAND sh -c "\"$1\" completion bash > \"$2.tmp\" && mv \"$2.tmp\" \"$2\"" sh
          $<TARGET_FILE:medsynth-engine> ${MEDSYNTH_GENERATED_SHARE}/bash-completion/completions/medsynth-engine
  DEPENDS medsynth-engine VERBATIM)
install(FILES ${MEDSYNTH_GENERATED_SHARE}/bash-completion/completions/medsynth-engine
        DESTINATION share/bash-completion/completions COMPONENT engine)
function(medsynth_man_page target component summary)
  set(page ${MEDSYNTH_GENERATED_SHARE}/man/man1/${target}.1.gz)
  add_custom_command(OUTPUT ${page}
    COMMAND ${PROJECT_SOURCE_DIR}/installer/package/man_page.sh ${MEDSYNTH_HELP2MAN} $<TARGET_FILE:${target}> "${summary}" ${page}
    DEPENDS ${target} ${PROJECT_SOURCE_DIR}/installer/package/man_page.sh VERBATIM)
  set_property(GLOBAL APPEND PROPERTY MEDSYNTH_MAN_PAGES ${page})
  install(FILES ${page} DESTINATION share/man/man1 COMPONENT ${component})
endfunction()
if(MEDSYNTH_HELP2MAN)
  medsynth_man_page(medsynth-engine engine "train, sample and judge 3D generative models for CT/MRI (headless)")
endif()

if(TARGET medsynth)
  install(TARGETS medsynth RUNTIME DESTINATION ${MEDSYNTH_PRIVATE_DIR}/bin COMPONENT console)
  # The console loads only Debian's libraries: no RUNPATH at all.
  install(CODE "file(RPATH_REMOVE FILE \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${MEDSYNTH_PRIVATE_DIR}/bin/medsynth\")"
          COMPONENT console)
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/package)
  file(CREATE_LINK ../lib/medsynth/bin/medsynth ${CMAKE_BINARY_DIR}/package/medsynth SYMBOLIC)
  install(FILES ${CMAKE_BINARY_DIR}/package/medsynth DESTINATION bin COMPONENT console)
  install(FILES ${PROJECT_SOURCE_DIR}/resources/desktop/medsynth.desktop DESTINATION share/applications COMPONENT console)
  install(FILES ${PROJECT_SOURCE_DIR}/resources/desktop/medsynth.svg DESTINATION share/icons/hicolor/scalable/apps COMPONENT console)
  install(FILES ${PROJECT_SOURCE_DIR}/resources/desktop/medsynth-mime.xml DESTINATION share/mime/packages
          RENAME medsynth.xml COMPONENT console)
  install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION share/doc/medsynth RENAME copyright COMPONENT console)
  if(MEDSYNTH_HELP2MAN)
    medsynth_man_page(medsynth console "desktop console for 3D generative medical imaging: jobs, runs, cluster launch, volume viewer")
  endif()
endif()
get_property(_medsynth_pages GLOBAL PROPERTY MEDSYNTH_MAN_PAGES)
add_custom_target(medsynth_generated_docs ALL DEPENDS ${_medsynth_generated} ${_medsynth_pages})

# --- CPack: one .deb per component ------------------------------------------
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME medsynth)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "medsynth developers <medsynth-dev@users.noreply.github.com>")
set(CPACK_PACKAGE_VENDOR medsynth)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL engine)
if(TARGET medsynth)
  list(APPEND CPACK_COMPONENTS_ALL console)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Depends from dpkg-shlibdeps on the packaged binaries (Debian's ITK, GDCM,
# yaml-cpp, Qt, VTK, libssh ...), never a hand-kept list. LibTorch is the one
# library no package provides: dpkg-shlibdeps finds it here and, with the
# --ignore-missing-info that CPack passes, adds no dependency for it.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${TORCH_INSTALL_PREFIX}/lib)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)
set(CPACK_DEBIAN_ENGINE_PACKAGE_NAME medsynth-engine)
set(CPACK_DEBIAN_CONSOLE_PACKAGE_NAME medsynth)
set(CPACK_COMPONENT_CONSOLE_DEPENDS engine)
# help2man's pages and the .desktop/MIME files are picked up by Debian's own
# triggers (man-db, desktop-file-utils, shared-mime-info): no maintainer scripts.
set(CPACK_DEBIAN_CONSOLE_PACKAGE_RECOMMENDS "shared-mime-info, desktop-file-utils")
set(CPACK_COMPONENT_ENGINE_DESCRIPTION
  "train, sample and judge 3D generative models for CT/MRI (engine)\nmedsynth-engine trains MAISI-style autoencoders, latent diffusion, VQ-GAN and\nsurvival models on CPU or GPU, alone or over Gloo/NCCL, and imports NVIDIA's\nMAISI weights. It needs LibTorch ${Torch_VERSION}: point it at a PyTorch\ninstallation with medsynth-libtorch (see /usr/share/doc/medsynth-engine).")
set(CPACK_COMPONENT_CONSOLE_DESCRIPTION
  "desktop cluster console for 3D generative medical imaging\nmedsynth configures training jobs, launches them locally or over SSH/SLURM,\ncharts loss, PSNR and SSIM live and shows generated CT/MRI volumes in 3D.")
include(CPack)
