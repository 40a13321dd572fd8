# Tests of engine/volume. The fixtures write some inputs with ITK directly
# (int16 and 4D NIfTI, DICOM series, NRRD and MetaImage), so this test links
# ITK privately, as medsynth_volume does, without ITK_USE_FILE.
medsynth_add_test(NAME medsynth_volume_tests
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/checked_write_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/dicom_export_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/dicom_io_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/itk_fixtures.cpp
    ${CMAKE_CURRENT_LIST_DIR}/nifti_bytes.cpp
    ${CMAKE_CURRENT_LIST_DIR}/nifti_extension_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/nifti_header_guard_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/nrrd_mha_io_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/volume_io_test.cpp
  LIBS medsynth_volume ZLIB::ZLIB ${ITK_LIBRARIES}
  LABELS unit)
target_include_directories(medsynth_volume_tests SYSTEM PRIVATE ${ITK_INCLUDE_DIRS})
medsynth_warnings(medsynth_volume_tests)

# The DICOM-SEG export, read back with DCMTK's own SEG reader (dcmseg).
if(DCMTK_FOUND)
  medsynth_add_test(NAME medsynth_dicom_seg_tests
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/dicom_seg_export_test.cpp
    LIBS medsynth_volume DCMTK::dcmseg
    LABELS unit)
  medsynth_warnings(medsynth_dicom_seg_tests)
endif()
