# Sources of engine/config (owned by that folder).
target_sources(medsynth_config PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/autoencoder_kl_options.cpp
  ${CMAKE_CURRENT_LIST_DIR}/controlnet_spec.cpp
  ${CMAKE_CURRENT_LIST_DIR}/did_you_mean.cpp
  ${CMAKE_CURRENT_LIST_DIR}/diffusion_spec.cpp
  ${CMAKE_CURRENT_LIST_DIR}/job_data_paths.cpp
  ${CMAKE_CURRENT_LIST_DIR}/job_document.cpp
  ${CMAKE_CURRENT_LIST_DIR}/job_enums.cpp
  ${CMAKE_CURRENT_LIST_DIR}/job_field_checks.cpp
  ${CMAKE_CURRENT_LIST_DIR}/job_fields.cpp
  ${CMAKE_CURRENT_LIST_DIR}/job_hash.cpp
  ${CMAKE_CURRENT_LIST_DIR}/job_loader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/job_node_values.cpp
  ${CMAKE_CURRENT_LIST_DIR}/job_overrides.cpp
  ${CMAKE_CURRENT_LIST_DIR}/job_schema.cpp
  ${CMAKE_CURRENT_LIST_DIR}/job_validation.cpp
  ${CMAKE_CURRENT_LIST_DIR}/job_writer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/job_yaml_reader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/maisi_network_config.cpp
  ${CMAKE_CURRENT_LIST_DIR}/job_plan.cpp
  ${CMAKE_CURRENT_LIST_DIR}/network_size.cpp
  ${CMAKE_CURRENT_LIST_DIR}/number_text.cpp
  ${CMAKE_CURRENT_LIST_DIR}/patch_discriminator_options.cpp
  ${CMAKE_CURRENT_LIST_DIR}/resnet3d_options.cpp
  ${CMAKE_CURRENT_LIST_DIR}/task_catalog.cpp
  ${CMAKE_CURRENT_LIST_DIR}/vector_quantizer_options.cpp)
