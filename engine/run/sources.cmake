# Sources of engine/run: a run directory's lock; what a crashed process leaves
# (the directory's layout is the contract's: contract/run_directory.hpp).
target_sources(medsynth_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/crash_report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/run_lock.cpp)
