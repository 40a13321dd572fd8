# Sources of engine/eval: judging generated volumes (intensity and per-label
# HU checks, memorization audit, feature networks, the evaluate stage).
target_sources(medsynth_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/evaluation.cpp
  ${CMAKE_CURRENT_LIST_DIR}/evaluation_output.cpp
  ${CMAKE_CURRENT_LIST_DIR}/feature_network.cpp
  ${CMAKE_CURRENT_LIST_DIR}/intensity_checks.cpp
  ${CMAKE_CURRENT_LIST_DIR}/label_hu_check.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memorization_audit.cpp
  ${CMAKE_CURRENT_LIST_DIR}/organ_quality_check.cpp
  ${CMAKE_CURRENT_LIST_DIR}/parallel_map.cpp)
