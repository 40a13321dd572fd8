# engine/eval: feature networks, intensity checks, the evaluate verb.
medsynth_add_test(NAME eval_evaluate_cli_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/evaluate_cli_test.cpp
    ${PROJECT_SOURCE_DIR}/tests/support/tensorboard_reader.cpp
  LIBS medsynth_engine nlohmann_json::nlohmann_json
  LABELS unit)
add_dependencies(eval_evaluate_cli_test medsynth-engine)
target_compile_definitions(eval_evaluate_cli_test PRIVATE MEDSYNTH_EVAL_TEST_DATA="${CMAKE_CURRENT_LIST_DIR}/data")
# FID feature networks from MedicalNet-style and RadImageNet-style weights
# (data/make_medicalnet_fixture.py, data/make_radimagenet_fixture.py).
medsynth_add_test(NAME eval_feature_network_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/feature_network_test.cpp
  LIBS medsynth_engine
  LABELS unit)
target_compile_definitions(eval_feature_network_test PRIVATE MEDSYNTH_EVAL_TEST_DATA="${CMAKE_CURRENT_LIST_DIR}/data")
# Issue 39 item 3: NV-Generate's per-organ median HU check.
medsynth_add_test(NAME eval_organ_quality_check_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/organ_quality_check_test.cpp
  LIBS medsynth_engine nlohmann_json::nlohmann_json
  LABELS unit)
