// A `tbdrsim run --json` report's per-draw costs (`draw_costs`) checked against their render pass:
// the counts always, tile-list and texture bytes where the configuration attributes them.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

namespace tbdr::test {

// Every render pass of every frame: as many draw_costs as draws, and their sums equal to the pass's
// figures (tools/doc/reports.md "Per-draw costs": tile-list bytes are attributed under binning=aabb rendered
// through tiles, texture bytes under texture=cache).
inline void expect_draw_costs_sum_to_passes(const nlohmann::json& report) {
  const nlohmann::json& config = report.at("config");
  const bool tile_lists = config.at("binning").at("impl") == "aabb" && config.at("direct").at("impl") == "never";
  const bool textures = config.at("texture").at("impl") == "cache";
  for (const nlohmann::json& frame : report.at("frames"))
    for (const nlohmann::json& pass : frame.at("passes")) {
      if (pass.at("type") != "render") continue;
      SCOPED_TRACE(pass.at("name").get<std::string>());
      const nlohmann::json& draws = pass.at("draw_costs");
      ASSERT_EQ(draws.size(), pass.at("draws").get<size_t>());
      auto sum = [&](const char* field) {
        uint64_t s = 0;
        for (const nlohmann::json& d : draws) s += d.at(field).get<uint64_t>();
        return s;
      };
      auto bytes = [&](const char* category, const char* direction) {
        return pass.at("dram").at("by_category").at(category).at(direction).get<uint64_t>();
      };
      for (const char* field : {"vertices", "primitives_in", "primitives_culled", "primitives_clipped", "primitives",
                                "fragments", "fragments_shaded", "texel_fetches"})
        EXPECT_EQ(sum(field), pass.at(field).get<uint64_t>()) << field;
      EXPECT_EQ(sum("vertex_read_bytes"), bytes("vertex", "read_bytes"));
      if (tile_lists) {
        EXPECT_EQ(sum("tile_list_entries"), pass.at("tile_list_entries").get<uint64_t>());
        EXPECT_EQ(sum("tile_list_write_bytes"), bytes("tile_list", "write_bytes"));
        EXPECT_EQ(sum("tile_list_read_bytes"), bytes("tile_list", "read_bytes"));
      }
      if (textures) EXPECT_EQ(sum("texture_read_bytes"), bytes("texture", "read_bytes"));
    }
}

}  // namespace tbdr::test
