# Tests of engine/models: every network, against MONAI 1.6.1 fixtures where MONAI has it.
medsynth_add_test(NAME models_autoencoder_kl_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/autoencoder_kl_test.cpp
  LIBS medsynth_engine
  LABELS unit)
medsynth_add_test(NAME models_patch_discriminator_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/patch_discriminator_test.cpp
  LIBS medsynth_engine
  LABELS unit)
# Parity with MONAI: reference weights and outputs written by data/make_monai_reference.py.
medsynth_add_test(NAME models_monai_parity_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/monai_parity_test.cpp
  LIBS medsynth_engine nlohmann_json::nlohmann_json
  LABELS unit)
target_compile_definitions(models_monai_parity_test PRIVATE MEDSYNTH_MODELS_TEST_DATA="${CMAKE_CURRENT_LIST_DIR}/data")
# docs/interop.md: a medsynth checkpoint in MONAI (data/make_interop_fixture.py) gives medsynth's numbers.
medsynth_add_test(NAME models_interop_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/interop_test.cpp
  LIBS medsynth_engine nlohmann_json::nlohmann_json
  LABELS unit)
target_compile_definitions(models_interop_test PRIVATE MEDSYNTH_MODELS_TEST_DATA="${CMAKE_CURRENT_LIST_DIR}/data")
medsynth_add_test(NAME models_vector_quantizer_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/vector_quantizer_test.cpp
  LIBS medsynth_engine
  LABELS unit)
medsynth_add_test(NAME models_split_convolution_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/split_convolution_test.cpp
  LIBS medsynth_engine
  LABELS unit)
# bf16 autocast on tiny maps (models/conv3d_forward.hpp: a LibTorch 2.15 CPU bug).
medsynth_add_test(NAME models_conv3d_forward_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/conv3d_forward_test.cpp
  LIBS medsynth_engine
  LABELS unit)
medsynth_add_test(NAME models_network_size_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/network_size_test.cpp
  LIBS medsynth_engine
  LABELS unit)
target_include_directories(models_network_size_test PRIVATE ${PROJECT_SOURCE_DIR}/tests/bench)
# Parity with MONAI's DiffusionModelUNetMaisi and ControlNetMaisi: reference
# weights and outputs written by data/make_maisi_unet_reference.py.
medsynth_add_test(NAME models_maisi_unet_parity_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/maisi_unet_parity_test.cpp
  LIBS medsynth_engine
  LABELS unit)
target_compile_definitions(models_maisi_unet_parity_test PRIVATE MEDSYNTH_MODELS_TEST_DATA="${CMAKE_CURRENT_LIST_DIR}/data")
# Issue 51: the 8-phase convolution of a nearest x2 upsampling against the direct one.
medsynth_add_test(NAME models_nearest_upsample_conv_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/nearest_upsample_conv_test.cpp
  LIBS medsynth_engine
  LABELS unit)
