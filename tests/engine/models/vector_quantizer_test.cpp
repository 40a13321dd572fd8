// The VQ-GAN's vector quantizer (vector_quantizer.hpp): nearest-code lookup,
// the straight-through gradient path, EMA codebook updates, dead-code
// restarts and the perplexity metric.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "models/vector_quantizer.hpp"
#include "models/vqgan.hpp"

namespace medsynth {
namespace {

VectorQuantizerOptions small(bool ema) {
  VectorQuantizerOptions o;
  o.num_embeddings = 4;
  o.embedding_dim = 2;
  o.codebook_update = ema ? "ema" : "straight_through";
  o.dead_code_threshold = 0;
  return o;
}

// z [1, 2, 1, 1, n] from a list of 2-vectors.
at::Tensor vectors(std::vector<std::array<float, 2>> v) {
  at::Tensor t = at::empty({static_cast<std::int64_t>(v.size()), 2});
  for (std::size_t i = 0; i < v.size(); ++i) {
    t[static_cast<std::int64_t>(i)][0] = v[i][0];
    t[static_cast<std::int64_t>(i)][1] = v[i][1];
  }
  return t.t().reshape({1, 2, 1, 1, static_cast<std::int64_t>(v.size())});
}

TEST(VectorQuantizer, PicksTheNearestCodeAndPassesGradientStraightThrough) {
  VectorQuantizer vq(small(false));
  {
    at::NoGradGuard g;
    vq->embedding.copy_(at::tensor({0.f, 0.f, 1.f, 0.f, 0.f, 1.f, 5.f, 5.f}).view({4, 2}));
  }
  vq->eval();
  at::Tensor z = vectors({{0.9f, 0.1f}, {0.1f, 0.8f}, {4.f, 4.5f}}).requires_grad_(true);
  QuantizerOutput out = vq->forward(z);
  EXPECT_TRUE(at::equal(out.indices.flatten(), at::tensor({1, 2, 3}, at::kLong))) << out.indices;
  // Forward values are the codes...
  EXPECT_TRUE(at::allclose(out.quantized, vectors({{1, 0}, {0, 1}, {5, 5}})));
  // ...and d(sum quantized)/dz is the identity (straight-through estimator).
  at::Tensor w = at::randn(out.quantized.sizes());
  (out.quantized * w).sum().backward();
  EXPECT_TRUE(at::allclose(z.grad(), w));
  // Straight-through codebook learning: the codebook gets a gradient from the loss.
  vq->embedding.mutable_grad() = at::Tensor();
  QuantizerOutput again = vq->forward(z.detach());
  again.loss.backward();
  ASSERT_TRUE(vq->embedding.grad().defined());
  EXPECT_GT(vq->embedding.grad().abs().sum().item<double>(), 0);
  EXPECT_EQ(vq->embedding.grad()[0].abs().sum().item<double>(), 0) << "code 0 was not used and must get no gradient";
}

TEST(VectorQuantizer, EmaUpdateMovesUsedCodesTowardsTheirVectors) {
  auto o = small(true);
  o.ema_decay = 0.5;
  VectorQuantizer vq(o);
  {
    at::NoGradGuard g;
    vq->embedding.copy_(at::tensor({0.f, 0.f, 1.f, 0.f, 0.f, 1.f, 5.f, 5.f}).view({4, 2}));
    vq->ema_embed_sum.copy_(vq->embedding);
    vq->ema_cluster_size.fill_(1.0);
  }
  vq->train();
  const at::Tensor before = vq->embedding.clone();
  at::Tensor z = vectors({{2.f, 0.f}, {2.f, 0.f}});  // both nearest to code 1 at (1, 0)
  vq->forward(z);
  // Code 1 moved towards (2, 0); the unused code 3 kept its direction.
  EXPECT_GT(vq->embedding[1][0].item<double>(), 1.2);
  EXPECT_NEAR(vq->embedding[1][1].item<double>(), 0.0, 1e-6);
  EXPECT_FALSE(vq->embedding.requires_grad());
  EXPECT_TRUE(at::allclose(vq->embedding[3] / vq->embedding[3].norm(), before[3] / before[3].norm()));
  // Commitment is the only loss term with EMA updates: beta * ||z - e||^2.
  vq->eval();
  QuantizerOutput out = vq->forward(z);
  const double e = vq->embedding[1][0].item<double>();
  EXPECT_NEAR(out.loss.item<double>(), o.commitment_cost * (2.0 - e) * (2.0 - e) / 2.0, 1e-5);
}

TEST(VectorQuantizer, DeadCodesAreRestartedOnEncoderOutputs) {
  auto o = small(true);
  o.num_embeddings = 8;
  o.dead_code_threshold = 0.05;
  o.ema_decay = 0.5;
  VectorQuantizer vq(o);
  vq->train();
  at::manual_seed(0);
  at::Tensor z = at::randn({2, 2, 2, 2, 2}) * 0.01 + 3.0;  // far from every initial code (all near 0)
  int restarted = 0;
  for (int i = 0; i < 6; ++i) restarted += vq->forward(z).restarted;
  EXPECT_GT(restarted, 0);
  // After restarts several codes sit among the encoder outputs, and the batch uses more than one code.
  at::Tensor near = std::get<0>((vq->embedding - 3.0).abs().max(1)) < 0.1;
  EXPECT_GE(near.sum().item<std::int64_t>(), 2);
  vq->eval();
  EXPECT_GT(vq->forward(z).perplexity, 1.5);
}

TEST(VectorQuantizer, PerplexityCountsCodesInUse) {
  VectorQuantizer vq(small(false));
  {
    at::NoGradGuard g;
    vq->embedding.copy_(at::tensor({0.f, 0.f, 1.f, 0.f, 0.f, 1.f, 5.f, 5.f}).view({4, 2}));
  }
  vq->eval();
  EXPECT_NEAR(vq->forward(vectors({{0, 0}, {0, 0}})).perplexity, 1.0, 1e-4);
  EXPECT_NEAR(vq->forward(vectors({{0, 0}, {1, 0}, {0, 1}, {5, 5}})).perplexity, 4.0, 1e-3);
}

TEST(VectorQuantizer, BadOptionsNameTheirField) {
  auto o = small(true);
  o.ema_decay = 1.0;
  EXPECT_THROW(
      {
        try {
          VectorQuantizer vq(o);
        } catch (const UsageError& e) {
          EXPECT_NE(std::string(e.what()).find("model.vqgan.ema_decay"), std::string::npos);
          throw;
        }
      },
      UsageError);
}

TEST(Vqgan, ReconstructionGradientReachesTheEncoderThroughTheCodebook) {
  AutoencoderKLOptions coder;
  coder.num_channels = {4, 8};
  coder.num_res_blocks = {1, 1};
  coder.attention_levels = {false, false};
  coder.norm_num_groups = 4;
  VectorQuantizerOptions q;
  q.num_embeddings = 16;
  q.embedding_dim = 3;
  Vqgan model(coder, q);
  at::manual_seed(1);
  at::Tensor x = at::rand({2, 1, 8, 8, 8});
  VqganOutput out = model->forward(x);
  EXPECT_EQ(out.reconstruction.sizes(), x.sizes());
  EXPECT_EQ(out.quantizer.indices.sizes(), (std::vector<std::int64_t>{2, 4, 4, 4}));
  ((out.reconstruction - x).abs().mean() + out.quantizer.loss).backward();
  double encoder_grad = 0;
  for (const auto& p : model->encoder->parameters()) encoder_grad += p.grad().defined() ? p.grad().abs().sum().item<double>() : 0;
  EXPECT_GT(encoder_grad, 0) << "the straight-through estimator must carry the decoder's gradient to the encoder";
}

}  // namespace
}  // namespace medsynth
