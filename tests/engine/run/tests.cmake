# Tests of engine/run: the crash report (run directories are tested with the trainer).
medsynth_add_test(NAME crash_report_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/crash_report_test.cpp
  LIBS medsynth_engine
  LABELS unit)
