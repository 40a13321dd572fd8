// Unit tests (no display) of the viewer's display rules: window/level
// presets, percentile window, the drag rule, colormaps, transfer functions
// and the software-renderer detection.
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include <QtTest>

#include "ui/viewer/colormap.hpp"
#include "ui/viewer/gl_renderer_info.hpp"
#include "ui/viewer/volume_rendering_preset.hpp"
#include "ui/viewer/window_level.hpp"

using namespace medsynth::ui;

class ViewerDisplayMathTest : public QObject {
  Q_OBJECT

 private slots:
  void ct_presets_have_the_radiology_values() {
    const auto check = [](WindowPreset p, double w, double l) {
      const WindowPresetInfo& info = window_preset_info(p);
      QCOMPARE(info.preset, p);
      QCOMPARE(info.window_level.window, w);
      QCOMPARE(info.window_level.level, l);
    };
    check(WindowPreset::ct_lung, 1400, -500);
    check(WindowPreset::ct_bone, 1000, 400);
    check(WindowPreset::ct_soft_tissue, 350, 40);
    check(WindowPreset::ct_brain, 100, 50);
    check(WindowPreset::ct_air, 1000, -426);
    QCOMPARE(window_presets().size(), std::size_t{6});
    QCOMPARE(window_presets().front().preset, WindowPreset::automatic);
    const WindowLevel lung = window_preset_info(WindowPreset::ct_lung).window_level;
    QCOMPARE(lung.lower(), -1200.0);
    QCOMPARE(lung.upper(), 200.0);
  }

  void percentiles_by_nearest_rank() {
    std::vector<float> ramp(1000);
    for (int i = 0; i < 1000; ++i) ramp[static_cast<std::size_t>(i)] = static_cast<float>(999 - i);  // unsorted input
    const IntensityStats s = intensity_stats(ramp.data(), ramp.size());
    QCOMPARE(s.min, 0.0);
    QCOMPARE(s.max, 999.0);
    QCOMPARE(s.low, 10.0);    // round(0.01 * 999) = 10
    QCOMPARE(s.high, 989.0);  // round(0.99 * 999) = 989
    QCOMPARE(s.finite_count, std::size_t{1000});
    const WindowLevel wl = percentile_window_level(s);
    QCOMPARE(wl.window, 979.0);
    QCOMPARE(wl.level, 499.5);
  }

  void percentiles_ignore_non_finite_voxels_and_outliers() {
    std::vector<float> v(200, 5.0f);
    for (int i = 0; i < 100; ++i) v[static_cast<std::size_t>(i)] = static_cast<float>(i);
    v[150] = std::numeric_limits<float>::quiet_NaN();
    v[151] = std::numeric_limits<float>::infinity();
    v[152] = 1e6f;  // a single hot voxel must not stretch the window
    const IntensityStats s = intensity_stats(v.data(), v.size(), {2.0, 98.0});
    QCOMPARE(s.finite_count, std::size_t{198});
    QCOMPARE(s.max, 1e6);
    // Sorted finite values: 0..4, then 98 fives, then 6..99, then 1e6.
    QCOMPARE(s.low, 4.0);    // rank round(0.02 * 197) = 4
    QCOMPARE(s.high, 96.0);  // rank round(0.98 * 197) = 193
  }

  void percentiles_on_a_sample_stay_close_even_for_periodic_data() {
    std::vector<float> v(100000);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 1000);
    PercentileOptions o;
    o.max_samples = 1000;
    const IntensityStats s = intensity_stats(v.data(), v.size(), o);
    QVERIFY(std::abs(s.low - 10.0) <= 10.0);
    QVERIFY(std::abs(s.high - 989.0) <= 10.0);
    QCOMPARE(s.finite_count, v.size());
  }

  void empty_flat_and_sparse_volumes_give_a_usable_window() {
    const IntensityStats empty = intensity_stats(nullptr, 0);
    QCOMPARE(empty.finite_count, std::size_t{0});
    std::vector<float> flat(64, 7.0f);
    const WindowLevel wl = percentile_window_level(intensity_stats(flat.data(), flat.size()));
    QCOMPARE(wl.window, 1.0);
    QCOMPARE(wl.level, 7.0);
    // Sparse: a few bright voxels in a zero background have equal percentiles.
    std::vector<float> sparse(1000, 0.0f);
    sparse[10] = sparse[20] = 500.0f;
    const WindowLevel sparse_wl = percentile_window_level(intensity_stats(sparse.data(), sparse.size()));
    QCOMPARE(sparse_wl.window, 500.0);
    QCOMPARE(sparse_wl.level, 250.0);
  }

  void percentile_options_are_validated_with_field_names() {
    QVERIFY(PercentileOptions{}.validate().isEmpty());
    QVERIFY((PercentileOptions{99.0, 1.0}).validate().contains(QLatin1String("low_percentile")));
    QVERIFY((PercentileOptions{1.0, 101.0}).validate().contains(QLatin1String("high_percentile")));
    std::vector<float> v(10, 1.0f);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, intensity_stats(v.data(), v.size(), {50.0, 10.0}));
  }

  void dragging_right_widens_and_up_raises_the_level() {
    const WindowLevel start{100.0, 50.0};
    const WindowLevel wider = drag_window_level(start, 40, 0, 1000.0, 400.0);
    QCOMPARE(wider.window, 200.0);  // 40 px * 1000/400
    QCOMPARE(wider.level, 50.0);
    const WindowLevel higher = drag_window_level(start, 0, -80, 1000.0, 400.0);
    QCOMPARE(higher.level, 250.0);
    QCOMPARE(higher.window, 100.0);
    const WindowLevel narrowest = drag_window_level(start, -10000, 0, 1000.0, 400.0);
    QVERIFY(narrowest.window > 0.0);
    QCOMPARE(narrowest.window, 1000.0 * 1e-4);
  }

  void colormaps_hit_their_end_points_and_clamp() {
    QCOMPARE(colormap_color(Colormap::grey, 0.0), (Rgb{0, 0, 0}));
    QCOMPARE(colormap_color(Colormap::grey, 1.0), (Rgb{1, 1, 1}));
    QCOMPARE(colormap_color(Colormap::grey, 0.25), (Rgb{0.25, 0.25, 0.25}));
    QCOMPARE(colormap_color(Colormap::hot, -3.0), (Rgb{0, 0, 0}));
    QCOMPARE(colormap_color(Colormap::hot, 7.0), (Rgb{1, 1, 1}));
    QCOMPARE(colormap_color(Colormap::hot, 0.375), (Rgb{1, 0, 0}));
    QCOMPARE(colormap_color(Colormap::grey, std::numeric_limits<double>::quiet_NaN()), (Rgb{0, 0, 0}));
    for (Colormap map : {Colormap::grey, Colormap::hot, Colormap::perceptual, Colormap::diverging}) {
      const auto stops = colormap_stops(map);
      QCOMPARE(stops.front().position, 0.0);
      QCOMPARE(stops.back().position, 1.0);
      for (std::size_t i = 1; i < stops.size(); ++i) QVERIFY(stops[i].position > stops[i - 1].position);
      QVERIFY(!colormap_name(map).isEmpty());
    }
  }

  void sequential_maps_get_lighter_monotonically() {
    for (Colormap map : {Colormap::grey, Colormap::hot, Colormap::perceptual}) {
      double previous = -1.0;
      for (int i = 0; i < 256; ++i) {
        const double l = cie_lightness(colormap_color(map, i / 255.0));
        QVERIFY2(l >= previous - 1e-9, qPrintable(QStringLiteral("%1 at %2").arg(colormap_name(map)).arg(i)));
        previous = l;
      }
    }
    // The perceptual map spans a wide lightness range without going to pure black.
    QVERIFY(cie_lightness(colormap_color(Colormap::perceptual, 0.0)) > 10.0);
    QVERIFY(cie_lightness(colormap_color(Colormap::perceptual, 1.0)) > 85.0);
  }

  void diverging_map_is_lightest_in_the_middle_and_balanced() {
    const double middle = cie_lightness(colormap_color(Colormap::diverging, 0.5));
    for (int i = 0; i <= 100; ++i) {
      const double t = i / 100.0;
      QVERIFY(cie_lightness(colormap_color(Colormap::diverging, t)) <= middle + 1e-9);
      const double asymmetry = std::abs(cie_lightness(colormap_color(Colormap::diverging, t)) -
                                        cie_lightness(colormap_color(Colormap::diverging, 1.0 - t)));
      QVERIFY2(asymmetry < 8.0, qPrintable(QString::number(asymmetry)));
    }
    const Rgb low = colormap_color(Colormap::diverging, 0.0), high = colormap_color(Colormap::diverging, 1.0);
    QVERIFY(low[2] > low[0]);    // negative differences blue
    QVERIFY(high[0] > high[2]);  // positive differences red
  }

  void transfer_functions_are_ordered_and_make_bone_opaque() {
    IntensityStats mri;
    mri.min = 0;
    mri.max = 1200;
    mri.low = 100;
    mri.high = 1100;
    mri.finite_count = 10;
    for (VolumePreset preset : volume_presets()) {
      const auto points = transfer_function(preset, mri);
      QVERIFY(points.size() >= 3);
      for (std::size_t i = 0; i < points.size(); ++i) {
        QVERIFY(points[i].opacity >= 0.0 && points[i].opacity <= 1.0);
        if (i > 0) QVERIFY(points[i].value > points[i - 1].value);
      }
      QVERIFY(!volume_preset_name(preset).isEmpty());
    }
    const auto opacity_at = [](const std::vector<TransferPoint>& pts, double v) {
      for (std::size_t i = 1; i < pts.size(); ++i)
        if (v <= pts[i].value) {
          const double f = (v - pts[i - 1].value) / (pts[i].value - pts[i - 1].value);
          return pts[i - 1].opacity + f * (pts[i].opacity - pts[i - 1].opacity);
        }
      return pts.back().opacity;
    };
    const auto bone = transfer_function(VolumePreset::ct_bone, {});
    QCOMPARE(opacity_at(bone, 40.0), 0.0);    // soft tissue invisible
    QCOMPARE(opacity_at(bone, -1000.0), 0.0);  // air invisible
    QVERIFY(opacity_at(bone, 1000.0) > 0.5);  // cortical bone opaque
    const auto soft = transfer_function(VolumePreset::ct_soft_tissue, {});
    QVERIFY(opacity_at(soft, 40.0) > 0.2);
    QCOMPARE(opacity_at(soft, -1000.0), 0.0);
    const auto mr = transfer_function(VolumePreset::mri, mri);
    QCOMPARE(mr.front().value, 100.0);
    QCOMPARE(mr.back().value, 1100.0);
    QCOMPARE(mr.front().opacity, 0.0);
  }

  void ct_like_volumes_get_the_bone_preset() {
    IntensityStats ct;
    ct.min = -1024;
    ct.max = 1800;
    ct.finite_count = 100;
    QCOMPARE(suggest_volume_preset(ct), VolumePreset::ct_bone);
    IntensityStats mr;
    mr.min = 0;
    mr.max = 900;
    mr.finite_count = 100;
    QCOMPARE(suggest_volume_preset(mr), VolumePreset::mri);
    IntensityStats normalised;  // a generated volume in [-1, 1]
    normalised.min = -1;
    normalised.max = 1;
    normalised.finite_count = 100;
    QCOMPARE(suggest_volume_preset(normalised), VolumePreset::mri);
  }

  void a_recorded_modality_wins_over_the_intensities() {
    IntensityStats ct;
    ct.min = -1024;
    ct.max = 1800;
    ct.finite_count = 100;
    IntensityStats dim_ct;  // a generated CT without bone: up to 172 HU
    dim_ct.min = -1000;
    dim_ct.max = 172;
    dim_ct.finite_count = 100;
    QCOMPARE(choose_volume_preset(ct, "mri").preset, VolumePreset::mri);
    QVERIFY(!choose_volume_preset(ct, "mri").guessed);
    QCOMPARE(choose_volume_preset(dim_ct, "ct").preset, VolumePreset::ct_bone);
    QVERIFY(!choose_volume_preset(dim_ct, "ct").guessed);
    QCOMPARE(choose_volume_preset(ct, "").preset, suggest_volume_preset(ct));
    QVERIFY(choose_volume_preset(ct, "").guessed);
  }

  void software_renderers_are_recognised() {
    QVERIFY(is_software_gl_renderer(QStringLiteral("llvmpipe (LLVM 15.0.6, 256 bits)")));
    QVERIFY(is_software_gl_renderer(QStringLiteral("Gallium 0.4 on softpipe")));
    QVERIFY(is_software_gl_renderer(QStringLiteral("Software Rasterizer (swrast)")));
    QVERIFY(!is_software_gl_renderer(QStringLiteral("NVIDIA GeForce RTX 4090/PCIe/SSE2")));
    QVERIFY(!is_software_gl_renderer(QStringLiteral("AMD Radeon Pro W6800")));
    QVERIFY(!is_software_gl_renderer(QString()));
  }
};

QTEST_GUILESS_MAIN(ViewerDisplayMathTest)
#include "viewer_display_math_test.moc"
