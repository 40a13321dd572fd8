# Sources of engine/state: what a run keeps between processes and where it
# runs — the safetensors file, the checkpoint folder, the training state a
# checkpoint holds (weights, AdamW moments, EMA, RNG, progress) and the device
# choice and the memory a run needed. Below train/ and diffusion/, which both
# read checkpoints.
target_sources(medsynth_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/checkpoint_store.cpp
  ${CMAKE_CURRENT_LIST_DIR}/device_choice.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ema_weights.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_high_water.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tensor_file.cpp
  ${CMAKE_CURRENT_LIST_DIR}/training_state.cpp)
