# Sources of engine/train: the training loop (trainer, session, step, checkpoints,
# validation), the tasks it trains, and their training data.
target_sources(medsynth_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/autocast_scope.cpp
  ${CMAKE_CURRENT_LIST_DIR}/autoencoder_task.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fused_adamw.cpp
  ${CMAKE_CURRENT_LIST_DIR}/init_weights.cpp
  ${CMAKE_CURRENT_LIST_DIR}/loss_scaler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/lr_schedule.cpp
  ${CMAKE_CURRENT_LIST_DIR}/own_batch_data.cpp
  ${CMAKE_CURRENT_LIST_DIR}/patch_gan_training.cpp
  ${CMAKE_CURRENT_LIST_DIR}/case_training_data.cpp
  ${CMAKE_CURRENT_LIST_DIR}/patch_training_data.cpp
  ${CMAKE_CURRENT_LIST_DIR}/validation_images.cpp
  ${CMAKE_CURRENT_LIST_DIR}/validation_means.cpp
  ${CMAKE_CURRENT_LIST_DIR}/survival_task.cpp
  ${CMAKE_CURRENT_LIST_DIR}/task.cpp
  ${CMAKE_CURRENT_LIST_DIR}/task_registry.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trainer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/training_checkpoints.cpp
  ${CMAKE_CURRENT_LIST_DIR}/training_data.cpp
  ${CMAKE_CURRENT_LIST_DIR}/training_data_check.cpp
  ${CMAKE_CURRENT_LIST_DIR}/training_report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/training_session.cpp
  ${CMAKE_CURRENT_LIST_DIR}/training_setup.cpp
  ${CMAKE_CURRENT_LIST_DIR}/training_step.cpp
  ${CMAKE_CURRENT_LIST_DIR}/training_tasks.cpp
  ${CMAKE_CURRENT_LIST_DIR}/training_test_hook_points.cpp
  ${CMAKE_CURRENT_LIST_DIR}/training_validation.cpp
  ${CMAKE_CURRENT_LIST_DIR}/vqgan_task.cpp)
