# Tests of engine/schedulers: DDPM, DDIM and rectified flow against closed forms.
medsynth_add_test(NAME schedulers_scheduler_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/scheduler_test.cpp
  LIBS medsynth_engine
  LABELS unit)
