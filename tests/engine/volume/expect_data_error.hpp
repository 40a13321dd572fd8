// EXPECT_DATA_ERROR(statement, path, text): the statement must throw a
// medsynth::DataError whose path is `path`, whose message names the file,
// and whose reason contains `text`. Any other exception fails the test.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"

#define EXPECT_DATA_ERROR(statement, file, text)                                                 \
  do {                                                                                           \
    const std::string expected_path_ = (file);                                                   \
    try {                                                                                        \
      statement;                                                                                 \
      ADD_FAILURE() << "no DataError from: " #statement;                                         \
    } catch (const ::medsynth::DataError& e) {                                                   \
      EXPECT_EQ(e.path(), expected_path_);                                                       \
      EXPECT_NE(std::string(e.what()).find(expected_path_), std::string::npos) << e.what();      \
      EXPECT_NE(e.reason().find(text), std::string::npos)                                        \
          << "reason \"" << e.reason() << "\" lacks \"" << (text) << "\"";                       \
    }                                                                                            \
  } while (0)
