# Tests of engine/run: the crash report (run directories are tested with the trainer).
medsynth_add_test(NAME crash_report_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/crash_report_test.cpp
  LIBS medsynth_engine
  LABELS unit)
# Issue 50 item 6: the run directory's lock (one writer per run).
medsynth_add_test(NAME run_lock_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/run_lock_test.cpp
  LIBS medsynth_engine nlohmann_json::nlohmann_json
  LABELS unit)
