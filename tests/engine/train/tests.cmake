# Trainer and schedules (checkpoint files: tests/engine/state).
medsynth_add_test(NAME train_lr_schedule_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/lr_schedule_test.cpp
  LIBS medsynth_engine
  LABELS unit)
medsynth_add_test(NAME train_trainer_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/trainer_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/trainer_images_test.cpp
    ${PROJECT_SOURCE_DIR}/tests/support/tensorboard_reader.cpp
    ${PROJECT_SOURCE_DIR}/tests/support/png_reader.cpp
  LIBS medsynth_engine nlohmann_json::nlohmann_json PNG::PNG
  LABELS unit)
# Issue 54 item 4: the epoch's last optimizer step on the micro-batches left.
medsynth_add_test(NAME train_partial_accumulation_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/partial_accumulation_test.cpp
  LIBS medsynth_engine nlohmann_json::nlohmann_json
  LABELS unit)
target_include_directories(train_partial_accumulation_test PRIVATE ${CMAKE_CURRENT_LIST_DIR}/..)
# The validation slices: planes, orientation, intensity map, layout.
medsynth_add_test(NAME train_validation_images_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/validation_images_test.cpp
  LIBS medsynth_engine
  LABELS unit)
# The task registry against config/task_catalog.
medsynth_add_test(NAME train_task_registry_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/task_registry_test.cpp
  LIBS medsynth_engine
  LABELS unit)
target_include_directories(train_task_registry_test PRIVATE ${CMAKE_CURRENT_LIST_DIR}/..)
target_include_directories(train_trainer_test PRIVATE ${CMAKE_CURRENT_LIST_DIR}/..)
# The patch VQ-GAN's must-show: vqgan-tiny on 2 processes through the real binary.
medsynth_add_test(NAME train_vqgan_tiny_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/vqgan_tiny_test.cpp ${PROJECT_SOURCE_DIR}/tests/support/png_reader.cpp
  LIBS medsynth_engine nlohmann_json::nlohmann_json PNG::PNG
  LABELS dist
  TIMEOUT 900)
add_dependencies(train_vqgan_tiny_test medsynth-engine)
target_compile_definitions(train_vqgan_tiny_test PRIVATE MEDSYNTH_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
# The survival workflow: Cox loss, C-index, SmartCache, CSV labels, survival-tiny end to end.
medsynth_add_test(NAME train_survival_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/survival_test.cpp
  LIBS medsynth_engine nlohmann_json::nlohmann_json
  LABELS unit
  TIMEOUT 600)
add_dependencies(train_survival_test medsynth-engine)
target_compile_definitions(train_survival_test PRIVATE MEDSYNTH_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
# When training.amp becomes bf16 autocast on a CPU, and MEDSYNTH_CPU_BF16.
medsynth_add_test(NAME train_autocast_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/autocast_test.cpp
  LIBS medsynth_engine
  LABELS unit)
# --init-weights from a torch.save state dict (a MedicalNet-shaped fixture of tests/engine/weights/data).
medsynth_add_test(NAME train_init_weights_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/init_weights_test.cpp
  LIBS medsynth_engine nlohmann_json::nlohmann_json
  LABELS unit)
add_dependencies(train_init_weights_test medsynth-engine)
target_compile_definitions(train_init_weights_test PRIVATE
  MEDSYNTH_TORCH_SAVE_TEST_DATA="${CMAKE_SOURCE_DIR}/tests/engine/weights/data/torch_save"
  MEDSYNTH_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
# Issue 36's must-show: vqgan-tiny with the seed's loss weights (both
# discriminators, perceptual loss from the fixture network) on 2 processes.
medsynth_add_test(NAME train_vqgan_seed_weights_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/vqgan_seed_weights_test.cpp
  LIBS medsynth_engine nlohmann_json::nlohmann_json
  LABELS dist
  TIMEOUT 900)
add_dependencies(train_vqgan_seed_weights_test medsynth-engine)
target_compile_definitions(train_vqgan_seed_weights_test PRIVATE MEDSYNTH_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
# Issue 51: ATen's fused AdamW against torch's loop (weights and moments).
medsynth_add_test(NAME train_fused_adamw_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/fused_adamw_test.cpp
  LIBS medsynth_engine
  LABELS unit)
