# Tests of engine/data: phantoms, transforms, datasets, cache, loader.
medsynth_add_test(NAME medsynth_data_tests
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/batch_loader_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/case_listing_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/ct_phantom_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/image_conditioning_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/patch_grid_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/region_blend_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/transforms_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tumour_free_label_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/volume_cache_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/volume_dataset_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/volume_listing_formats_test.cpp
  LIBS medsynth_engine
  LABELS unit)
medsynth_warnings(medsynth_data_tests)
medsynth_add_test(NAME data_sliding_window_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/sliding_window_test.cpp
  LIBS medsynth_engine
  LABELS unit)
# Issue 39 item 1: prepare-label (MAISI classes, body envelope, the grid),
# unit cases and the verb through the real binary.
medsynth_add_test(NAME data_label_preparation_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/label_preparation_test.cpp
  LIBS medsynth_engine
  LABELS unit)
add_dependencies(data_label_preparation_test medsynth-engine)
# Issue 50 item 10: a user's label map, key by key and value by value.
medsynth_add_test(NAME data_label_vocabulary_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/label_vocabulary_test.cpp
  LIBS medsynth_engine
  LABELS unit)
# Issue 39 item 4: MAISI classes as DICOM-SEG segments, and the export verbs.
medsynth_add_test(NAME data_label_dicom_export_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/label_dicom_export_test.cpp
  LIBS medsynth_engine
  LABELS unit)
add_dependencies(data_label_dicom_export_test medsynth-engine)
