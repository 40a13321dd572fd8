# Compiler launcher and warnings shared by every target.
# ccache is keyed on paths relative to the source tree (CCACHE_BASEDIR), so a
# fresh clone elsewhere reuses the cache; the sloppiness settings let it cache
# TUs that use a precompiled header.
find_program(MEDSYNTH_CCACHE ccache)
if(MEDSYNTH_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER
      ${CMAKE_COMMAND} -E env
      CCACHE_BASEDIR=${CMAKE_SOURCE_DIR}
      CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
      CCACHE_NOHASHDIR=1
      ${MEDSYNTH_CCACHE})
  set(CMAKE_C_COMPILER_LAUNCHER ${CMAKE_CXX_COMPILER_LAUNCHER})
endif()

# Applied per target (third-party headers are included as SYSTEM).
function(medsynth_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter)
endfunction()
