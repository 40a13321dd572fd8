# Sources of engine/data (owned by that folder): phantoms, transforms,
# datasets, cache, loader, the patch grid and sliding-window inference over it.
target_sources(medsynth_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/batch_loader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/case_grids.cpp
  ${CMAKE_CURRENT_LIST_DIR}/case_listing.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ct_body_mask.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ct_phantom.cpp
  ${CMAKE_CURRENT_LIST_DIR}/image_conditioning.cpp
  ${CMAKE_CURRENT_LIST_DIR}/intensity_transforms.cpp
  ${CMAKE_CURRENT_LIST_DIR}/label_preparation.cpp
  ${CMAKE_CURRENT_LIST_DIR}/patch_batch_source.cpp
  ${CMAKE_CURRENT_LIST_DIR}/region_blend.cpp
  ${CMAKE_CURRENT_LIST_DIR}/patch_grid.cpp
  ${CMAKE_CURRENT_LIST_DIR}/preprocess.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sliding_window_inference.cpp
  ${CMAKE_CURRENT_LIST_DIR}/smart_cache.cpp
  ${CMAKE_CURRENT_LIST_DIR}/spatial_transforms.cpp
  ${CMAKE_CURRENT_LIST_DIR}/survival_data.cpp
  ${CMAKE_CURRENT_LIST_DIR}/survival_labels.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tumour_free_label.cpp
  ${CMAKE_CURRENT_LIST_DIR}/volume_cache.cpp
  ${CMAKE_CURRENT_LIST_DIR}/volume_dataset.cpp
  ${CMAKE_CURRENT_LIST_DIR}/volume_listing.cpp
  ${CMAKE_CURRENT_LIST_DIR}/volume_tensor.cpp)

# The label vocabularies (torch-free, their own library: the console's label
# editor names classes by them; the engine links it too).
target_sources(medsynth_labels PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/label_dicom_codes.cpp
  ${CMAKE_CURRENT_LIST_DIR}/label_vocabulary.cpp)

# The label vocabularies of resources/labels/ compiled in (label_vocabulary.cpp):
# CMake configures again when a table changes.
foreach(table maisi-ct maisi-ct-dicom totalsegmentator vista3d)
  set(file ${PROJECT_SOURCE_DIR}/resources/labels/${table}.json)
  string(TOUPPER ${table} name)
  string(REPLACE "-" "_" name ${name})
  file(READ ${file} MEDSYNTH_LABELS_${name})
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${file})
endforeach()
configure_file(${CMAKE_CURRENT_LIST_DIR}/label_tables.hpp.in ${CMAKE_CURRENT_BINARY_DIR}/generated/data/label_tables.hpp @ONLY)
target_include_directories(medsynth_labels PRIVATE ${CMAKE_CURRENT_BINARY_DIR}/generated)
target_include_directories(medsynth_engine PRIVATE ${CMAKE_CURRENT_BINARY_DIR}/generated)
