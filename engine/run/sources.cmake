# Sources of engine/run: run directories and their lock; what a crashed process leaves.
target_sources(medsynth_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/crash_report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/run_directory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/run_lock.cpp)
