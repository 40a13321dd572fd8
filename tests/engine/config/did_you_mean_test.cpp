#include <gtest/gtest.h>

#include "config/did_you_mean.hpp"

namespace medsynth {
namespace {

TEST(EditDistance, CountsInsertionsDeletionsSubstitutionsAndSwaps) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("lr", "lrr"), 1u);
  EXPECT_EQ(edit_distance("batch_size", "batch_szie"), 1u);  // one swap, not two substitutions
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("epochs", "epochs"), 0u);
}

TEST(ClosestMatch, SuggestsOnlyPlausibleTypos) {
  const std::vector<std::string> keys{"epochs", "max_steps", "batch_size", "lr", "lr_schedule"};
  EXPECT_EQ(closest_match("batch_szie", keys), "batch_size");
  EXPECT_EQ(closest_match("lrr", keys), "lr");
  EXPECT_EQ(closest_match("Epochs", keys), "epochs");
  EXPECT_EQ(closest_match("maxsteps", keys), "max_steps");
  EXPECT_FALSE(closest_match("completely_different", keys).has_value());
  EXPECT_FALSE(closest_match("xy", keys).has_value());
  EXPECT_FALSE(closest_match("anything", {}).has_value());
}

TEST(DidYouMean, FormatsTheHintOrNothing) {
  EXPECT_EQ(did_you_mean("trainig", {"data", "training"}), "; did you mean 'training'?");
  EXPECT_EQ(did_you_mean("zzzzzz", {"data", "training"}), "");
}

}  // namespace
}  // namespace medsynth
