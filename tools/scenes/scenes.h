// The scene families make_scenes writes: one function per folder of traces/, each writing every
// file of that folder (trace JSON, sidecar .bin, texture PNG) into `dir`, creating it first.
#pragma once

#include <filesystem>

namespace tbdr::scenes {

// traces/default: the still life, a lit 1920x1080 forward frame (default_scene.cpp).
void write_default_trace(const std::filesystem::path& dir);
// traces/features: small traces, one feature each, pixels worked out by hand (features.cpp).
void write_feature_traces(const std::filesystem::path& dir);
// traces/seed000: a deferred G-buffer -> lighting frame, split into two render passes vs merged
// into one with two subpasses, 1x and 4x MSAA (deferred.cpp).
void write_deferred_traces(const std::filesystem::path& dir);
// traces/seed001: the same split deferred frame at 1920x1080 with a 64-bit normal (deferred.cpp).
void write_gbuffer_roundtrip_trace(const std::filesystem::path& dir);
// traces/local_read: the deferred lighting as subpasses and as local reads in dynamic rendering.
void write_local_read_traces(const std::filesystem::path& dir);
// traces/seed002: a mobile forward pipeline with post-processing and its optimized variants (forward.cpp).
void write_forward_traces(const std::filesystem::path& dir);
// traces/savers: the bandwidth savers' traces, transaction elimination and AFBC (savers.cpp).
void write_saver_traces(const std::filesystem::path& dir);
// traces/validation: the Vulkan-Samples performance samples' variants in an atrium (validation.cpp).
void write_validation_traces(const std::filesystem::path& dir);

}  // namespace tbdr::scenes
