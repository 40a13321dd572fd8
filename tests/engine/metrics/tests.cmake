# Tests of engine/metrics.
medsynth_add_test(NAME metrics_losses_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/losses_test.cpp
  LIBS medsynth_engine
  LABELS unit)
medsynth_add_test(NAME metrics_image_metrics_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/image_metrics_test.cpp
  LIBS medsynth_engine
  LABELS unit)
# Distribution metrics against MONAI 1.6.1 (fixtures from data/make_monai_metric_reference.py).
medsynth_add_test(NAME metrics_distribution_metrics_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/distribution_metrics_test.cpp
  LIBS medsynth_engine
  LABELS unit)
target_compile_definitions(metrics_distribution_metrics_test PRIVATE MEDSYNTH_METRICS_TEST_DATA="${CMAKE_CURRENT_LIST_DIR}/data")
# The perceptual loss against MONAI 1.6.1's PerceptualLoss (fixtures from
# data/make_monai_perceptual_reference.py).
medsynth_add_test(NAME metrics_perceptual_loss_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/perceptual_loss_test.cpp
  LIBS medsynth_engine
  LABELS unit)
target_compile_definitions(metrics_perceptual_loss_test PRIVATE MEDSYNTH_METRICS_TEST_DATA="${CMAKE_CURRENT_LIST_DIR}/data")
