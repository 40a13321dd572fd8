# Sources of engine/run: run directories.
target_sources(medsynth_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/run_directory.cpp)
