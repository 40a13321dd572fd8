# The latent diffusion pipeline, the MAISI networks against MONAI, and import-maisi.
medsynth_add_test(NAME diffusion_ldm_tiny_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/ldm_pipeline_test.cpp
  LIBS medsynth_engine nlohmann_json::nlohmann_json
  LABELS slow
  TIMEOUT 1200
  PROCESSORS 2)
add_dependencies(diffusion_ldm_tiny_test medsynth-engine)
target_compile_definitions(diffusion_ldm_tiny_test PRIVATE MEDSYNTH_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
medsynth_add_test(NAME diffusion_ldm_pipeline_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/ldm_pipeline_resume_test.cpp
    ${PROJECT_SOURCE_DIR}/tests/support/tensorboard_reader.cpp
  LIBS medsynth_engine nlohmann_json::nlohmann_json
  LABELS unit)
add_dependencies(diffusion_ldm_pipeline_test medsynth-engine)
target_compile_definitions(diffusion_ldm_pipeline_test PRIVATE MEDSYNTH_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
medsynth_add_test(NAME diffusion_latent_data_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/latent_data_test.cpp
  LIBS medsynth_engine
  LABELS unit)
medsynth_add_test(NAME diffusion_tiled_decode_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/tiled_decode_test.cpp
  LIBS medsynth_engine
  LABELS unit)
# import-maisi on a miniature NV-Generate folder (data/make_maisi_folder.py),
# then generate on two ranks through the real binary.
medsynth_add_test(NAME diffusion_import_maisi_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/import_maisi_test.cpp
  LIBS medsynth_engine nlohmann_json::nlohmann_json
  LABELS unit)
add_dependencies(diffusion_import_maisi_test medsynth-engine)
target_compile_definitions(diffusion_import_maisi_test PRIVATE MEDSYNTH_DIFFUSION_TEST_DATA="${CMAKE_CURRENT_LIST_DIR}/data")
# The provenance reader (torch-free, as the console links it).
medsynth_add_test(NAME generation_provenance_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/generation_provenance_test.cpp
  LIBS medsynth_contract nlohmann_json::nlohmann_json
  LABELS unit)
# Issue 34: an import-maisi run fine-tuned on two ranks through launch, each
# rank then generating its image (the miniature NV-Generate folder).
medsynth_add_test(NAME diffusion_maisi_training_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/maisi_training_test.cpp
  LIBS medsynth_engine nlohmann_json::nlohmann_json
  LABELS unit
  PROCESSORS 2)
add_dependencies(diffusion_maisi_training_test medsynth-engine)
target_compile_definitions(diffusion_maisi_training_test PRIVATE MEDSYNTH_DIFFUSION_TEST_DATA="${CMAKE_CURRENT_LIST_DIR}/data")
# Issue 49: an imported run fine-tunes with NV-Generate's recipe (loss,
# optimizer, schedule, label dropout, each file's modality, MR scaling).
medsynth_add_test(NAME diffusion_maisi_recipe_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/maisi_recipe_test.cpp
  LIBS medsynth_engine nlohmann_json::nlohmann_json
  LABELS unit)
add_dependencies(diffusion_maisi_recipe_test medsynth-engine)
target_compile_definitions(diffusion_maisi_recipe_test PRIVATE MEDSYNTH_DIFFUSION_TEST_DATA="${CMAKE_CURRENT_LIST_DIR}/data")
# Issue 34, item 2: embeddings in NV-Generate's layout, written by the encode
# stage of an imported run and read back as training input.
medsynth_add_test(NAME diffusion_maisi_embeddings_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/maisi_embeddings_test.cpp
  LIBS medsynth_engine nlohmann_json::nlohmann_json
  LABELS unit)
add_dependencies(diffusion_maisi_embeddings_test medsynth-engine)
target_compile_definitions(diffusion_maisi_embeddings_test PRIVATE MEDSYNTH_DIFFUSION_TEST_DATA="${CMAKE_CURRENT_LIST_DIR}/data")
# Issue 35: the Fast-DDPM BraTS user's image-to-image task on BraTS 2023 and
# 2021 case folders and a datalist, on two ranks through launch.
medsynth_add_test(NAME diffusion_translation_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/translation_test.cpp
    ${PROJECT_SOURCE_DIR}/tests/support/tensorboard_reader.cpp
    ${PROJECT_SOURCE_DIR}/tests/support/png_reader.cpp
  LIBS medsynth_engine nlohmann_json::nlohmann_json PNG::PNG
  LABELS unit
  PROCESSORS 2)
add_dependencies(diffusion_translation_test medsynth-engine)
target_compile_definitions(diffusion_translation_test PRIVATE MEDSYNTH_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
# Issue 36 item 2: diffusion on a VQ-GAN's codes (ldm.first_stage: vqgan):
# the first stage in-process, then a VQ-GAN with the seed's weights and an
# ldm on its checkpoint, both on two ranks through launch.
medsynth_add_test(NAME diffusion_ldm_on_vqgan_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/ldm_on_vqgan_test.cpp
  LIBS medsynth_engine nlohmann_json::nlohmann_json
  LABELS unit
  PROCESSORS 2)
add_dependencies(diffusion_ldm_on_vqgan_test medsynth-engine)
target_compile_definitions(diffusion_ldm_on_vqgan_test PRIVATE MEDSYNTH_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
# Issue 39 item 3: generate --quality-check regenerates an image whose organ is out of range.
medsynth_add_test(NAME diffusion_generate_quality_check_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/generate_quality_check_test.cpp
  LIBS medsynth_engine nlohmann_json::nlohmann_json
  LABELS unit)
add_dependencies(diffusion_generate_quality_check_test medsynth-engine)
target_compile_definitions(diffusion_generate_quality_check_test PRIVATE MEDSYNTH_DIFFUSION_TEST_DATA="${CMAKE_CURRENT_LIST_DIR}/data")
# Issue 50 item 10: the dataset card of a folder built by hand.
medsynth_add_test(NAME diffusion_dataset_card_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/dataset_card_test.cpp
  LIBS medsynth_engine
  LABELS unit)
# Issue 55 item 2: generate --inpaint on the imported miniature (a CT's
# region made again, the rest kept bit for bit), through the real binary.
medsynth_add_test(NAME diffusion_region_inpainting_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/region_inpainting_test.cpp
  LIBS medsynth_engine nlohmann_json::nlohmann_json
  LABELS unit)
add_dependencies(diffusion_region_inpainting_test medsynth-engine)
target_compile_definitions(diffusion_region_inpainting_test PRIVATE MEDSYNTH_DIFFUSION_TEST_DATA="${CMAKE_CURRENT_LIST_DIR}/data")
