# Sources of engine/volume (owned by that folder).
# ITK is PRIVATE and only the itk_*.cpp files include it (each ITK IO TU
# costs ~4 s). ITK_USE_FILE is not included: it would register IO
# factories and add ITK's flags for every target in this directory; the
# readers set their ImageIO explicitly instead.
target_sources(medsynth_volume PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/atomic_file.cpp
  ${CMAKE_CURRENT_LIST_DIR}/channel_volume_io.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dicom_export.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dicom_file_guard.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dicom_seg_export.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dicom_series.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dicom_stored_grid.cpp
  ${CMAKE_CURRENT_LIST_DIR}/itk_channel_volume_io.cpp
  ${CMAKE_CURRENT_LIST_DIR}/itk_dicom_export.cpp
  ${CMAKE_CURRENT_LIST_DIR}/itk_dicom_io.cpp
  ${CMAKE_CURRENT_LIST_DIR}/itk_nifti_io.cpp
  ${CMAKE_CURRENT_LIST_DIR}/itk_nrrd_meta_io.cpp
  ${CMAKE_CURRENT_LIST_DIR}/itk_version.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nifti_byte_source.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nifti_extension.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nifti_header_fields.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nifti_header_guard.cpp
  ${CMAKE_CURRENT_LIST_DIR}/volume_file_check.cpp
  ${CMAKE_CURRENT_LIST_DIR}/volume_io.cpp
  ${CMAKE_CURRENT_LIST_DIR}/volume_size_checks.cpp
  ${CMAKE_CURRENT_LIST_DIR}/write_failure_cause.cpp
  ${CMAKE_CURRENT_LIST_DIR}/written_nifti_check.cpp)
# GDCM's own headers (itk_dicom_export.cpp uses its UID generator) are not in
# ITK_INCLUDE_DIRS; the ITKGDCM module names them and its libraries.
target_include_directories(medsynth_volume SYSTEM PRIVATE ${ITK_INCLUDE_DIRS} ${ITKGDCM_INCLUDE_DIRS})
target_link_libraries(medsynth_volume PRIVATE ${ITK_LIBRARIES} ${ITKGDCM_LIBRARIES})
# DCMTK is PRIVATE to the one file that writes DICOM-SEG objects.
if(DCMTK_FOUND)
  target_sources(medsynth_volume PRIVATE ${CMAKE_CURRENT_LIST_DIR}/dcmtk_seg_writer.cpp)
  target_link_libraries(medsynth_volume PRIVATE DCMTK::dcmseg)
else()
  target_sources(medsynth_volume PRIVATE ${CMAKE_CURRENT_LIST_DIR}/dcmtk_seg_unavailable.cpp)
endif()
